"""Regenerates the `expected` lines of tests/rollouts/prepare/convert-cases.json by running NeMo Gym's own
benchmarks/<name>/prepare.py over each case's made-up rows: `datasets.load_dataset`, `get_dataset_config_names`
and `urllib.request.urlretrieve` are replaced by stubs serving those rows, so no network and no `datasets`
install are needed. Usage: python3 scripts/prepare-expected.py /path/to/NeMo-Gym [cases.json]
"""
import base64
import importlib.util
import io
import tarfile
import json
import sys
import tempfile
import types
import urllib.request
from pathlib import Path

nemo_root = Path(sys.argv[1])
cases_path = Path(sys.argv[2] if len(sys.argv) > 2 else "tests/rollouts/prepare/convert-cases.json")
cases = json.loads(cases_path.read_text())
current = {}


def rows_for(config, split):
    for source in current["sources"]:
        if source.get("config") == config and source.get("split") == split:
            return source["rows"]
    if config is not None and "configNames" not in current and split is not None:
        # Sources keyed by split alone (the -x datasets: one split per language, no config).
        for source in current["sources"]:
            if "config" not in source and source.get("split") == split:
                return source["rows"]
    return []


def load_dataset(path, name=None, split=None, **_):
    if split is None:
        return {"train": rows_for(name, "train")}
    hits = rows_for(name, split)
    if not hits and name is None:
        hits = next((s["rows"] for s in current["sources"] if s.get("split") == split), [])
    return hits


datasets = types.ModuleType("datasets")
datasets.load_dataset = load_dataset
datasets.get_dataset_config_names = lambda repo: current["configNames"]
sys.modules["datasets"] = datasets
tqdm = types.ModuleType("tqdm")
tqdm.tqdm = lambda iterable, **_: iterable
sys.modules["tqdm"] = tqdm
sys.modules["tqdm.auto"] = tqdm
global_config = types.ModuleType("nemo_gym.global_config")
global_config.HF_TOKEN_KEY_NAME = "hf_token"
global_config.get_global_config_dict = lambda: {}
sys.modules.setdefault("nemo_gym", types.ModuleType("nemo_gym"))
sys.modules["nemo_gym.global_config"] = global_config


def urlretrieve(url, filename):
    source = next(s for s in current["sources"] if s.get("url") == url)
    if "tar" in source:
        # A real archive (Python's default pax format; one member under a folder name past 100 characters).
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            for name, text in source["tar"].items():
                data = text.encode("utf-8")
                info = tarfile.TarInfo(name if len(name) > 60 else name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            long_dir = "data/test/" + "x" * 120 + "/ignored.csv"
            info = tarfile.TarInfo(long_dir)
            info.size = 3
            tar.addfile(info, io.BytesIO(b"a,b"))
        Path(filename).write_bytes(buffer.getvalue())
        source["tarBase64"] = base64.b64encode(buffer.getvalue()).decode("ascii")
        return
    rows = source["rows"]
    Path(filename).write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


urllib.request.urlretrieve = urlretrieve

for name, case in cases.items():
    current = case
    spec = importlib.util.spec_from_file_location(f"prepare_{name.replace('-', '_')}", nemo_root / "benchmarks" / name / "prepare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with tempfile.TemporaryDirectory() as tmp:
        module.DATA_DIR = Path(tmp)
        out = Path(tmp) / "out.jsonl"
        module.OUTPUT_FPATH = out
        if hasattr(module, "DEFAULT_OUTPUT_FPATH"):
            module.DEFAULT_OUTPUT_FPATH = out
        written = module.prepare(**case.get("args", {}))
        case["expected"] = Path(written).read_text(encoding="utf-8").splitlines()

cases_path.write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
print(f"expected lines for {len(cases)} benchmarks written to {cases_path}")

"""Regenerates the `expected` lines of tests/rollouts/prepare/convert-cases.json by running NeMo Gym's own
benchmarks/<name>/prepare.py (a name with a slash, `a/b/prepare_c`, is benchmarks/a/b/prepare_c.py) over each
case's made-up rows: `datasets.load_dataset`, `get_dataset_config_names`, `urllib.request.urlretrieve` /
`urlopen` and the loaders of the evalplus and human_eval_infilling libraries (each a dict of the file's tasks by
task_id) are replaced by stubs serving those rows, so no network is needed (orjson is).
Usage: python3 scripts/prepare-expected.py /path/to/NeMo-Gym [cases.json]

The long-context cases (longbench_v2, longcodebench) need the real `tiktoken` and `datasets` (and mmmlu's `pandas`)
importable, e.g. PYTHONPATH=<pip install --target dir datasets pandas tiktoken>: a `hf://…zip` source is written as
a real zip archive and read by datasets' own json builder; tiktoken's o200k_base file is rebuilt from js-tiktoken's
ranks (run from the project root, node on PATH) and tiktoken itself checks it against OpenAI's sha256.
"""
import base64
import contextlib
import importlib.util
import inspect
import io
import os
import tarfile
import json
import sys
import tempfile
import types
import urllib.request
import zipfile
from pathlib import Path

try:
    import datasets as real_datasets  # the real library, for datasets' json builder over a zip archive
except ImportError:
    real_datasets = None

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


def zip_rows(data_files):
    """`load_dataset("json", data_files="hf://datasets/<repo>/<path>")`: a real archive, read by datasets itself."""
    source = next(s for s in current["sources"] if data_files == f"hf://datasets/{s['repo']}/{s['path']}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member, text in source["zip"].items():
            # Stored and deflated members both, as archivers write them.
            archive.writestr(member, text.encode("utf-8"), compress_type=zipfile.ZIP_STORED if member.endswith(".jsonl") else zipfile.ZIP_DEFLATED)
    source["zipBase64"] = base64.b64encode(buffer.getvalue()).decode("ascii")
    if real_datasets is None:
        sys.exit("the real `datasets` library is needed for a zip source (pip install --target DIR datasets; PYTHONPATH=DIR)")
    tmp = tempfile.mkdtemp()
    local = Path(tmp) / Path(source["path"]).name
    local.write_bytes(buffer.getvalue())
    return real_load_dataset("json", data_files=str(local), cache_dir=str(Path(tmp) / "cache"))


class Rows(list):
    """A split's rows that also answer `dataset["column"]` (a column's values, as datasets.Dataset does)."""

    def __getitem__(self, key):
        if isinstance(key, str):
            return [row[key] for row in self]
        return super().__getitem__(key)


def load_dataset(path, name=None, split=None, data_files=None, **_):
    if path == "json" and data_files is not None:
        return zip_rows(data_files)
    if split is None:
        return {"train": rows_for(name, "train")}
    hits = rows_for(name, split)
    if not hits and name is None:
        hits = next((s["rows"] for s in current["sources"] if s.get("split") == split), [])
    return Rows(hits)


if real_datasets is not None:
    # Patched in place: datasets imports its own submodules lazily, so the real module must stay in sys.modules.
    real_load_dataset = real_datasets.load_dataset
    real_datasets.load_dataset = load_dataset
    real_datasets.get_dataset_config_names = lambda repo: current["configNames"]
else:
    datasets = types.ModuleType("datasets")
    datasets.load_dataset = load_dataset
    datasets.get_dataset_config_names = lambda repo: current["configNames"]
    sys.modules["datasets"] = datasets


def install_tiktoken_ranks():
    """tiktoken's o200k_base file, rebuilt from js-tiktoken's ranks into a tiktoken cache (tiktoken checks its sha256)."""
    import hashlib
    import os
    import subprocess

    cache = Path(tempfile.mkdtemp())
    script = (
        'import("js-tiktoken/ranks/o200k_base").then(({ default: r }) => { const out = [];'
        ' for (const line of r.bpe_ranks.split("\\n").filter(Boolean)) { const [, off, ...toks] = line.split(" ");'
        ' toks.forEach((t, i) => out.push([t, Number(off) + i])); }'
        ' out.sort((a, b) => a[1] - b[1]); process.stdout.write(out.map(([t, k]) => t + " " + k + "\\n").join("")); })'
    )
    ranks = subprocess.run(["node", "-e", script], check=True, capture_output=True).stdout
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(ranks)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)


install_tiktoken_ranks()
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
    if "csv" in source:
        Path(filename).write_text(source["csv"], encoding="utf-8", newline="")
        return
    rows = source["rows"]
    Path(filename).write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


urllib.request.urlretrieve = urlretrieve


def tasks_from(url_suffix):
    """The release file's tasks by task_id, in file order (what the libraries' loaders return)."""
    rows = next((s["rows"] for s in current["sources"] if s.get("url", "").endswith(url_suffix)), [])
    return {row["task_id"]: dict(row) for row in rows}


evalplus = types.ModuleType("evalplus")
evalplus_data = types.ModuleType("evalplus.data")
evalplus_data.get_human_eval_plus = lambda **_: tasks_from("/HumanEvalPlus.jsonl.gz")
evalplus_data.get_mbpp_plus = lambda **_: tasks_from("/MbppPlus.jsonl.gz")
sys.modules["evalplus"] = evalplus
sys.modules["evalplus.data"] = evalplus_data
INFILLING_FILES = {"single_line": "SingleLine", "multi_line": "MultiLine", "random_span": "RandomSpan", "random_span_light": "RandomSpanLight"}
infilling = types.ModuleType("human_eval_infilling")
infilling_data = types.ModuleType("human_eval_infilling.data")
infilling_data.read_problems = lambda split: tasks_from(f"/HumanEval-{INFILLING_FILES[split]}Infilling.jsonl.gz")
sys.modules["human_eval_infilling"] = infilling
sys.modules["human_eval_infilling.data"] = infilling_data
# Scripts that import shared helpers as `benchmarks.<name>.<module>` (livecodebench).
sys.path.insert(0, str(nemo_root))


def urlopen(url, *_, **__):
    """A file the case gives as text (mmlu_prox's lang_libs.py), or a zip archive of files (iheval's repository)."""
    source = next(s for s in current["sources"] if s.get("url") == url)
    if "zip" in source:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for member, text in source["zip"].items():
                archive.writestr(member, text.encode("utf-8"), compress_type=zipfile.ZIP_DEFLATED)
        source["zipBase64"] = base64.b64encode(buffer.getvalue()).decode("ascii")
        return contextlib.closing(io.BytesIO(buffer.getvalue()))
    return contextlib.closing(io.BytesIO(source["text"].encode("utf-8")))


urllib.request.urlopen = urlopen

for name, case in cases.items():
    current = case
    script = nemo_root / "benchmarks" / (f"{name}.py" if "/" in name else f"{name}/prepare.py")
    spec = importlib.util.spec_from_file_location(f"prepare_{name.replace('-', '_').replace('/', '_')}", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with tempfile.TemporaryDirectory() as tmp:
        # Every path of the script's data folder (outputs, downloads) goes to the temp folder, never into NeMo Gym's tree.
        for attr, value in list(vars(module).items()):
            if isinstance(value, Path) and value.is_relative_to(module.DATA_DIR) and attr != "DATA_DIR":
                setattr(module, attr, Path(tmp) / value.relative_to(module.DATA_DIR))
        module.DATA_DIR = Path(tmp)
        # A made-up lang_libs.py cannot have the pinned digest (the port checks it when downloading, not converting).
        if hasattr(module, "_verify_lang_libs"):
            module._verify_lang_libs = lambda content: None
        # mmmlu's helper module downloads next to its own __file__ (its data/ folder): there too, the temp folder.
        if isinstance(getattr(module, "utils", None), types.ModuleType) and hasattr(module.utils, "download_mmmlu_datasets"):
            module.utils.__file__ = str(Path(tmp) / "mmmlu_utils.py")
        # iheval's benchmark builds its source with the server's prepare_iheval.py: its download cache and the
        # test.jsonl it writes go to the temp folder too (the script reads IHEval's archive through urlopen).
        if hasattr(module, "_SRC_TEST"):
            os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
            module._SRC_TEST = Path(tmp) / "test.jsonl"
            real_spec_from_file_location = importlib.util.spec_from_file_location

            def server_prepare(name, path, *args, _tmp=tmp, **kwargs):
                spec = real_spec_from_file_location(name, path, *args, **kwargs)
                exec_module = spec.loader.exec_module

                def exec_redirected(mod):
                    exec_module(mod)
                    mod._DATA_DIR = Path(_tmp)

                spec.loader.exec_module = exec_redirected
                return spec

            importlib.util.spec_from_file_location = server_prepare
        out = Path(tmp) / "out.jsonl"
        module.OUTPUT_FPATH = out
        if hasattr(module, "DEFAULT_OUTPUT_FPATH"):
            module.DEFAULT_OUTPUT_FPATH = out
        args = dict(case.get("args", {}))
        if "output_path" in inspect.signature(module.prepare).parameters:
            args["output_path"] = out
        # A default bound at definition (output_fpath=DEFAULT_OUTPUT_FPATH) is not changed by the assignment above.
        if "output_fpath" in inspect.signature(module.prepare).parameters:
            args.setdefault("output_fpath", out)
        written = module.prepare(**args)
        if hasattr(module, "_SRC_TEST"):
            importlib.util.spec_from_file_location = real_spec_from_file_location
        # Lines end at "\n" only: orjson and ensure_ascii=False keep U+2028 and friends raw, which splitlines() splits at.
        case["expected"] = Path(written).read_text(encoding="utf-8").split("\n")[:-1]

cases_path.write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
print(f"expected lines for {len(cases)} benchmarks written to {cases_path}")

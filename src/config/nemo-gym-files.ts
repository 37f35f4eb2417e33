// Files of NeMo Gym's own repository that this project uses as they are but never commits (project rule: a
// fetched file is not ours to ship): its benchmarks' prompt templates, whose answer-format lines decide whether a
// score is comparable with NeMo Gym's. `gym eval prepare` fetches the ones a benchmark names from the public
// repository at the commit this port follows, each checked against the sha256 recorded here.
export const NEMO_GYM_COMMIT = "07d6b0d07b22fcf530b4c211dae2ee23100428e4";
export const NEMO_GYM_RAW_BASE_URL = `https://raw.githubusercontent.com/NVIDIA-NeMo/Gym/${NEMO_GYM_COMMIT}`;
/** Where NeMo Gym's files are read from instead (a mirror, or a loopback server in tests). */
export const NEMO_GYM_RAW_BASE_URL_ENV = "NEMO_GYM_RAW_BASE_URL";

/** The prompt_config files of the shipped benchmarks that are NeMo Gym's text, by repository path, sha256 at NEMO_GYM_COMMIT. */
export const NEMO_GYM_PROMPT_SHA256: Readonly<Record<string, string>> = Object.freeze({
  "benchmarks/birdbench/prompts/default.yaml": "ab856406697f67d201b4a375b67f4a0b70f7d7c4b9a28ada9a4618cda5d4d871",
  "benchmarks/bunsenbench_chemistry_mcq/prompts/default.yaml": "bbf44f7127f43a50a89b192a838f1760e0b0a0e650c615d7392f9bf18d1b8bdb",
  "benchmarks/flores200/prompts/default.yaml": "258eaefc0af9d690186e9e62b593784609015931974e0be34c81953b48dae7f0",
  "benchmarks/global-piqa/prompts/default.yaml": "d8416cae930b36b699fdbf14bd30a19cc87f4350d6ca480f2ef56623a63c6126",
  "benchmarks/hotpotqa_closedbook/prompts/default.yaml": "297ceb990975a300258093fef230374be337d6791d02499513fcdd87442dd64b",
  "benchmarks/human_eval_infilling/prompts/default.yaml": "e0a039ff7f7092a6163d97ee29c05a4356728f2fd6e8a8e61136e13aeacb55bf",
  "benchmarks/ifbench/prompts/default.yaml": "5db001fc36592a06e2945f5b2839ad41850159acd3bce384511b0ede09e35f58",
  "benchmarks/imo_gradingbench/prompts/default.yaml": "daaf3880561f9b208f62eef8c66742e35e360179f539571978d36c4001ff358a",
  "benchmarks/livecodebench/prompts/cascade.yaml": "aceccbd4ada23555dde0ca522b572ea29553495e2a096b0c28c473a8c4a5811d",
  "benchmarks/longbench_v2/prompts/default.yaml": "9fd477f4e154abe8c58a8243313dffcc5fa0b8eac592f6e6f90358cdabed1d6a",
  "benchmarks/mbpp/prompts/default.yaml": "adf0e9fe0e81fb94ddd98b5052e616e4540f10e30c634e1a7d5313b511324165",
  "benchmarks/prompts/eval/aai/mcq-10choices.yaml": "38c61527fd986cc25f044bb723edcc453b4da0133a38c06e8457657a5c286d44",
  "benchmarks/prompts/eval/aai/mcq-4choices-boxed.yaml": "315e4d7f556514316bcf69316698cea69483b9cea7b4b791f00682b310b57c4c",
  "benchmarks/prompts/eval/aai/mcq-4choices.yaml": "6f8b8d2d17e32c4fc314c8ff43534896cbf019556406b258e049c880c1b0e2e5",
  "benchmarks/prompts/eval/bigcodebench/codegen.yaml": "c75dd610827ee5861b607dec36cd9d87ff62db973e38ecfba8bfe25e4c2ee472",
  "benchmarks/prompts/eval/livecodebench/default_reasoning.yaml": "4961641673459e04d0795bf0b2f8dff346742ad4b5ab06ea03df373c48979bde",
  "benchmarks/prompts/generic/codegen.yaml": "05205bc1610b5f71fe87c888fa84d00262b1bcc97796a70cc8120d1302b96866",
  "benchmarks/prompts/generic/general-boxed.yaml": "440727f654f146d3347e735c99304a925cf9630e4191c4caee6f3ce8566d0c3c",
  "benchmarks/prompts/generic/math.yaml": "5513fb19370f19cab30cee7a50ac737a81f13f32cfa48791a033087d3f29dbf9",
  "benchmarks/ruler2/prompts/default.yaml": "cb70bef57851f6f657072ae34e8c4a1cd076ba1081abc9ceda447975af714d33",
  "benchmarks/wmt24pp/prompts/default.yaml": "258eaefc0af9d690186e9e62b593784609015931974e0be34c81953b48dae7f0",
});

/**
 * Files of NeMo Gym's resources servers that a ported server reads as data (judge prompt templates, or the config /
 * module a template string sits in), by repository path, sha256 at NEMO_GYM_COMMIT: fetched on first use when absent,
 * git-ignored, never committed.
 */
export const NEMO_GYM_SERVER_FILE_SHA256: Readonly<Record<string, string>> = Object.freeze({
  "resources_servers/abstention/app.py": "62a1594166bea4b266f95c00e7ad078b9264ed4b5b027a5158771f62d3ea4949",
  "resources_servers/arena_judge/prompts/arena.yaml": "ff10984e1e3333d8538336602e65f8a63208cad793a169b34ec73a63473c9dc5",
  "resources_servers/arena_judge/prompts/arena_creative.yaml": "957030034106ec34dfb7c67565619165d310e54b15f0db6a16cfd1907dcc634e",
  "resources_servers/equivalence_llm_judge/prompt_templates/equivalence_llm_judge.txt": "9c87da7e5e241fadc25cc624df0a06e06f12cacb3926d770107d536988849de5",
  "resources_servers/equivalence_llm_judge/prompt_templates/lc_judge.txt": "40ca2bea03f7e37bb887f176370aa3ca9064293d1d5fab175bde3c4cae1cf4b2",
  "resources_servers/frontierscience_judge/prompts/judge.yaml": "9e3b5637eae2e027d115a7a53894582c59e966471e66240961d824c4b4cd5254",
  "resources_servers/frontierscience_judge/prompts/research_judge.yaml": "60d59fb33b623252199f2db8b9b28729da58f1d0af33c900507c5b8b72e4b595",
  "resources_servers/jailbreak_detection/app.py": "544d9e3b224cf08df3877f07e9acc18e7c961ca689caa0f42cb3acc4b679233b",
  "resources_servers/jailbreak_detection/configs/jailbreak_detection_nemotron_combined_reward_tp8.yaml": "41d2fce2af56f227382d16aaf42e2908fdfcfe99f7316e512fbe67b0852d029e",
  "resources_servers/jailbreak_detection/configs/verifier_prompt_templates.yaml": "1de27f51bd5a3b2077cf51d8352a6e282acecc23b163ddc86ddb4cbb2713d49d",
  "resources_servers/jailbreak_detection/util.py": "a27ba54ca8d48852103702ea491373e914996c95e90710d2b0b8c2448d193a26",
  "resources_servers/omniscience/prompts/judge.yaml": "311c06a8f6a29cc49b0be44c6f6fad98b867f93126ea6bdd99f865968e02a3e8",
  "resources_servers/over_refusal_detection/app.py": "31cbe243b5385acd798a11965d6b7b3c2a08b5949d47f4d7d51101d1739fdbe5",
  "resources_servers/finance_sec_search/prompt_templates/finance_sec_search_judge.yaml": "db944b65f8b50624f8ebfcfb6ff5e38a2f8a4abe07341042a222294016d58066",
  "resources_servers/finance_sec_search/prompt_templates/finance_sec_search_retrieval.yaml": "d139f5d2209d39fd869d83f700d6683efae1e9efb5ac4511fdefd1e5194810d6",
  "resources_servers/over_refusal_detection/configs/over_refusal_detection.yaml": "06f2daf57ae2e4b3d67e81e98df31f7719a5d4d5df70ccbbe53fdee40d8e13ec",
  "resources_servers/over_refusal_detection/configs/over_refusal_detection_nemotron_tp8.yaml": "ec9e1d2463955d73c72bbab98b347df2ffa6113b249bee7cfd9b6d2c4845f35e",
  "resources_servers/over_refusal_detection/util.py": "8d58330dd3a8ff746a80948300cf12ba1e5518cbfbbfa40dbbdbb49ea48b5eb0",
  "resources_servers/physics_judge/prompts/judge.yaml": "ca0e67219acbc6dbd837e7face50371fee61c4d0cc98cfb79cac8d7144225560",
  "resources_servers/proof_genselect/prompt_templates/genselect.yaml": "3ee605deb4f99667b1f43aec9bd5e00aab808b76e3da81dca9607b8fda9a690b",
  "resources_servers/proof_judge/prompt_templates/meta-verifier.yaml": "50100cdf976dd2c657f8f2b1f82f1230015d8489c05996511127c320e0419cb6",
  "resources_servers/proof_judge/prompt_templates/verifier.yaml": "e4e8c5bb96cff03846b3c4a300927512ec5def04b59dfffea1a5028f938143de",
  "resources_servers/proof_verification/prompt_templates/meta-verifier.yaml": "3476cb7f6a3734d6ad9b3ca16bf71512829786c1912ae1fd4850369cc4e2b85c",
  "resources_servers/simpleqa/prompts/judge.yaml": "4a3d86145f611fffef67e56bd1df9da6ce6c2bd6ab91c8cacd038ed81aab0d9c",
  "resources_servers/terminus_judge/prompt_templates/rubrics_v4.txt": "965179b5c2207b3fe2638ebc37003206141591bebe66a10619a41ae50fdf5c79",
  "resources_servers/terminus_judge/prompt_templates/terminus_prompt.txt": "2bf0f9fcb461fff21df707f677673ccf0c247d6227c98748458e328104e7b6f7",
  "resources_servers/tavily_search/judge_prompt.py": "2ab81d873d57d4cbf9b3ac0a1bd5bbf7a8868199e476a00cb3d4142a8b409058",
  "resources_servers/text_to_sql/prompts.py": "7b6676abe381967ef970074309ad683799a10fb6306f03068b25936a1dacf855",
  "resources_servers/ugphysics_judge/prompts/judge.yaml": "b7bd6a02b53f907f57be6d6c90736da01f9d99c831f9c0caef143ede455b31e0",
  "resources_servers/xstest/prompt_templates/wildguard_judge.txt": "194824689f567ea4db0c2ff294f44eac9a4937831e76c35e1f97ec862a1f635c",
  "resources_servers/xstest/prompt_templates/xstest_judge.txt": "7d893e1d2888e0cf98a3d4816f7369c75598ac03a54fea1770fbe84900abcb0d",
  // The LangGraph agents' prompt texts are constants (and literals) of their graph modules, read as data.
  "responses_api_agents/langgraph_agent/orchestrator_agent.py": "5562487f1928d8624a4c2d6c3527b2b6414002da5301ea3e0cdd08093ed1ac98",
  "responses_api_agents/langgraph_agent/parallel_thinking_agent.py": "6eba9e4a7638f75d5405e6903e493ea5aae50c5fa9e2e0defce69c11e450758e",
  "responses_api_agents/langgraph_agent/reflection_agent.py": "ff54811612bcb351ff73198ad05cbb4d184cb08c8186565df1a2b4545ebeef3b",
  "responses_api_agents/langgraph_agent/rewoo_agent.py": "7cb6241e1a3a0d1a8bd7f3624ee684e36e431257db25acc63573b76d783a7fb1",
});

export const nemoGymRawBaseUrl = (env: NodeJS.ProcessEnv = process.env): string => (env[NEMO_GYM_RAW_BASE_URL_ENV] || NEMO_GYM_RAW_BASE_URL).replace(/\/+$/, "");

/** A prompt_config path (as a config spells it) that `gym eval prepare` fetches when it is not here. */
export const isFetchedPrompt = (path: string): boolean => Object.hasOwn(NEMO_GYM_PROMPT_SHA256, path.replace(/^\.\//, ""));

/**
 * The benchmark name `gym eval prepare --benchmark` takes for a dataset's prepare_script, by NeMo Gym's layout:
 * benchmarks/<b>/prepare.py is <b>, benchmarks/<b>/prepare_<v>.py belongs to benchmarks/<b>/config_<v>.yaml.
 */
export function benchmarkOfPrepareScript(prepareScript: string | undefined): string | undefined {
  const match = /^(?:\.\/)?benchmarks\/(.+?)\/prepare(?:_(\w+))?\.py$/.exec(prepareScript ?? "");
  if (!match) return undefined;
  // A nested benchmark's variant is a sibling config (livecodebench/v6_2408_2505/prepare_cascade.py → …/cascade).
  if (match[2]) return match[1]!.includes("/") ? `${match[1]}/${match[2]}` : `${match[1]}/config_${match[2]}`;
  return match[1];
}


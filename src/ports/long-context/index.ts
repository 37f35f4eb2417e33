// Scores of NeMo Gym's long-context servers: GraphWalks' node lists (graphwalks, lc_niah), RULER's string matches
// (ruler, ruler2) with the word edit distance behind v2's WER, and the metrics mrcr, graphwalks and ruler2 share.
// SequenceMatcher (mrcr, lc_niah) is Python's difflib: src/python/difflib.ts.
export { expectedNodeSet, nodeKey, nodeSetF1, parseFinalAnswerNodes, type NodeListOptions, type ParsedNodeList } from "./node-list.ts";
export { RULER2_MATCH_TYPES, ruler2Match, rulerMatchAll, rulerMatchPart, softMatch, wordErrorRate, type Ruler2MatchType } from "./string-match.ts";
export { levenshtein, wordEditDistance } from "../text-overlap/word-edit-distance.ts";
export { longContextKeyMetrics, rewardAccuracy, rewardMetrics, rewardMetricsByNamedSubset, rewardSubsetMetrics } from "./metrics.ts";

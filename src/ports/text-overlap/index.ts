// Text-overlap scores ported from Python: NLTK's sentence BLEU, CVDP's ROUGE-n recall, rouge-score's ROUGE-L / ROUGE-N
// and the word-level edit distance behind editdistance's and jiwer's WER.
export { modifiedPrecision, sentenceBleu, uniformWeights } from "./bleu.ts";
export { cvdpNgrams, cvdpRougeRecall, rougeLScore, rougeNScore, rougeScoreTokens, type RougeScore } from "./rouge.ts";
export { levenshtein, wordEditDistance } from "./word-edit-distance.ts";

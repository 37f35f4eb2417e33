// Text-overlap scores ported from Python: NLTK's sentence BLEU, CVDP's ROUGE-n recall and rouge-score's ROUGE-L / ROUGE-N.
export { modifiedPrecision, sentenceBleu, uniformWeights } from "./bleu.ts";
export { cvdpNgrams, cvdpRougeRecall, rougeLScore, rougeNScore, rougeScoreTokens, type RougeScore } from "./rouge.ts";

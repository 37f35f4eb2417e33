// Text-overlap scores ported from Python: NLTK's sentence BLEU and CVDP's ROUGE-n recall.
export { modifiedPrecision, sentenceBleu, uniformWeights } from "./bleu.ts";
export { cvdpNgrams, cvdpRougeRecall } from "./rouge.ts";

// Python's `re` module on JS strings, with Python 3.11's meaning: the patterns datasets carry (mcqa's
// `template_metadata.output_regex`, format_verification's `verify_regex` / `patterns`, instruction_following's
// keywords, workplace_assistant's search terms) and those of the Python libraries ported here
// (verifiable-instructions, NLTK's punkt and Treebank). translate.ts turns Python pattern syntax into JS RegExp
// source; pattern.ts is the compiled pattern object. Python's `re.error` is exception.ts's PyRegexError.
export { translatePythonRegex, UnsupportedPythonRegexError, type PythonRegexFlags } from "./translate.ts";
export {
  compilePythonRegex,
  compilePythonRegexValue,
  PythonPattern,
  pythonFindall,
  pythonFinditer,
  pythonFullmatch,
  pythonMatch,
  pythonSearch,
  pythonSplit,
  pythonSub,
  type FindallItem,
  type PythonMatch,
  type PythonReplacement,
} from "./pattern.ts";

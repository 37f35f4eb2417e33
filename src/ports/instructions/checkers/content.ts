// detectable_content:* — placeholders and postscripts.
import { choice, instruction, str, threshold } from "../instruction.ts";
import { pythonFindall } from "../../../python/re/index.ts";
import { pythonStrip } from "../../../python/str.ts";

/** At least `num_placeholders` `[...]` placeholders on one line each (PlaceholderChecker). */
export const numberPlaceholders = instruction(["num_placeholders"], (kwargs) => {
  const minimum = threshold(kwargs.num_placeholders, "num_placeholders", 1, 4);
  return (response) => pythonFindall("\\[.*?\\]", response).length >= minimum;
});

/** A line starting with the postscript marker, ignoring case (PostscriptChecker). */
export const postscript = instruction(["postscript_marker"], (kwargs) => {
  const marker = kwargs.postscript_marker === undefined ? choice(["P.S.", "P.P.S"]) : pythonStrip(str(kwargs.postscript_marker, "postscript_marker"));
  // The two standard markers tolerate a space after each period; any other marker is used as a pattern.
  const pattern = marker === "P.P.S" ? "\\s*p\\.\\s?p\\.\\s?s.*$" : marker === "P.S." ? "\\s*p\\.\\s?s\\..*$" : `\\s*${marker.toLowerCase()}.*$`;
  return (response) => pythonFindall(pattern, response.toLowerCase(), { multiline: true }).length > 0;
});

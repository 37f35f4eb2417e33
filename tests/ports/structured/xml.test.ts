// xmltodict.parse(text) over expat; shapes and error messages were checked against python3's pyexpat driven
// the way xmltodict 1.0.2 drives it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseXml } from "../../../src/ports/structured/xml.ts";
import { asObject } from "./helpers.ts";

const parsed = (text: string) => asObject(parseXml(text));
const expatError = (text: string, message: string) => assert.throws(() => parseXml(text), { name: "ExpatError", message }, JSON.stringify(text));

describe("xmltodict.parse", () => {
  test("the root tag is the top-level key; leaves are stripped strings", () => {
    assert.deepEqual(parsed("<person>\n  <name> Ann </name>\n  <age>30</age>\n</person>"), { person: { name: "Ann", age: "30" } });
  });

  test("repeated children become a list, in document order", () => {
    assert.deepEqual(parsed("<r><a>1</a><b>2</b><a>3</a><a>4</a></r>"), { r: { a: ["1", "3", "4"], b: "2" } });
  });

  test("attributes are @keys, text beside attributes or children is #text", () => {
    assert.deepEqual(parsed('<n id="7" kind=\'x\'>t</n>'), { n: { "@id": "7", "@kind": "x", "#text": "t" } });
    assert.deepEqual(parsed("<r>before<c/>after</r>"), { r: { c: null, "#text": "beforeafter" } });
  });

  test("empty and whitespace-only elements are None", () => {
    assert.deepEqual(parsed("<r><e/><f></f><g>   </g></r>"), { r: { e: null, f: null, g: null } });
    assert.deepEqual(parsed("<a/>"), { a: null });
  });

  test("entities, character references and CDATA are text; comments and PIs are dropped", () => {
    assert.deepEqual(parsed("<r>&lt;&gt;&quot;&apos;&amp;&#65;&#x42;<![CDATA[ <y> ]]><!-- c --><?pi x?></r>"), { r: "<>\"'&AB <y>" });
    assert.deepEqual(parsed('<r a="x&amp;y\tz"/>'), { r: { "@a": "x&y z" } });
  });

  test("an XML declaration, a DOCTYPE and a BOM are accepted; a DOCTYPE declaring an entity is refused", () => {
    assert.deepEqual(parsed('\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE a><a>1</a>'), { a: "1" });
    assert.throws(() => parseXml('<!DOCTYPE a [<!ENTITY x "y">]><a/>'), { name: "ValueError", message: "entities are disabled" });
  });

  test("text that is not XML fails where expat stops (columns from 0)", () => {
    expatError("", "no element found: line 1, column 0");
    expatError("hello", "syntax error: line 1, column 0");
    expatError("Here is XML:\n<a/>", "syntax error: line 1, column 0");
    expatError("```xml\n<a/>\n```", "not well-formed (invalid token): line 1, column 0");
    expatError("<|BEGIN_CODE|\n<a/>", "not well-formed (invalid token): line 1, column 1");
    expatError('{"a": 1}', "not well-formed (invalid token): line 1, column 0");
    expatError("Here's", "not well-formed (invalid token): line 1, column 4");
  });

  test("a second root, or text after the root, is junk", () => {
    expatError("<a/><b/>", "junk after document element: line 1, column 4");
    expatError("<a>\n  <b>1</b>\n</a>\n<c/>", "junk after document element: line 4, column 0");
    expatError("<a>1</a>\n```", "not well-formed (invalid token): line 2, column 0");
  });

  test("content errors: bare &, undefined entities, mismatched and unclosed tags", () => {
    expatError("<a>é & b</a>", "not well-formed (invalid token): line 1, column 6");
    expatError("<a>&nbsp;</a>", "undefined entity: line 1, column 3");
    expatError("<a><b></a>", "mismatched tag: line 1, column 8");
    expatError("<root>\n<x>é</x>\n</roo>", "mismatched tag: line 3, column 2");
    expatError("<a><b>", "no element found: line 1, column 6");
    expatError("<a>x</a", "unclosed token: line 1, column 4");
    expatError("<a><![CDATA[x", "unclosed CDATA section: line 1, column 13");
  });

  test("tag errors: duplicate or unquoted attributes, a misplaced XML declaration", () => {
    expatError('<a b="1" b="2"/>', "duplicate attribute: line 1, column 9");
    expatError("<a b=1/>", "not well-formed (invalid token): line 1, column 5");
    expatError('<a b="<"/>', "not well-formed (invalid token): line 1, column 6");
    expatError(' <?xml version="1.0"?><a/>', "XML or text declaration not at start of entity: line 1, column 1");
    expatError("<a>&#0;</a>", "reference to invalid character number: line 1, column 3");
  });

  test("CRLF counts as one line end", () => {
    expatError("<a>\r\n<b/></c>", "mismatched tag: line 2, column 6");
  });
});

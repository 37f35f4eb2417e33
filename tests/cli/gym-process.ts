// The CLI tests' child-process helpers live in the public test kit (src/testing/child-process.ts).
export * from "../../src/testing/child-process.ts";

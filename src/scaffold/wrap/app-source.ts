// The generated `app.ts` of a wrapped domain module: a resourcesServer that imports the module and maps its
// constructor (or state factory) to the seed, its public methods (or functions) to tools and its scoring
// function to verify — and copies none of its logic.
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { classTitle, libraryImport, zodImport } from "../common.ts";
import type { DomainModule, DomainTool, ParameterList } from "./analyze.ts";
import { objectSource, propertyKey } from "./zod-source.ts";

/** `word_guess.ts` → `wordGuess`; `Wordle` → `wordle`. */
const lowerCamel = (text: string) => text.replace(/[-_.\s]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/^[A-Z]/, (c) => c.toLowerCase());

/** The import specifier of the domain module from `fromDir` (a relative path, with its extension). */
export function moduleImport(fromDir: string, modulePath: string): string {
  const specifier = relative(fromDir, modulePath).split(sep).join("/");
  return specifier.startsWith(".") ? specifier : `./${specifier}`;
}

/** The identifier the state is called by in `run` arrows: not one of the names the arrow also binds or uses. */
function pickName(preferred: string[], taken: Set<string>): string {
  return preferred.find((name) => /^[A-Za-z_$][\w$]*$/.test(name) && !taken.has(name)) ?? "domainState";
}

/** Arguments of a call from the validated tool input: `(word)`, `(args)` for an object parameter. */
function callArguments(parameters: ParameterList, argsName: string, destructured: boolean): string {
  if (parameters.passing === "object") return argsName;
  return parameters.fields.map((f) => (destructured ? f.name : `${argsName}[${JSON.stringify(f.name)}]`)).join(", ");
}

function runArrow(tool: DomainTool, stateName: string, stateType: string, callee: (args: string) => string, reserved: Set<string>): string {
  const { parameters } = tool;
  const names = parameters.fields.map((f) => f.name);
  if (names.length === 0) return `(${stateName}: ${stateType}) => domainCall(() => ${callee("")})`;
  // Destructure when every name is a plain identifier that shadows nothing the arrow uses.
  const destructured = parameters.passing === "positional" && names.every((n) => /^[A-Za-z_$][\w$]*$/.test(n) && !reserved.has(n));
  const binding = destructured ? `{ ${names.join(", ")} }` : "args";
  return `(${stateName}: ${stateType}, ${binding}) => domainCall(() => ${callee(callArguments(parameters, "args", destructured))})`;
}

export interface AppSourceOptions {
  name: string;
  /** Folder the app is written to (import paths are computed from it). */
  appDir: string;
}

export function appSource(domain: DomainModule, { name, appDir }: AppSourceOptions): string {
  const lib = (module: string) => libraryImport(appDir, module);
  const modulePath = moduleImport(appDir, domain.path);
  const isClass = domain.style === "class";
  const allFieldNames = new Set(domain.tools.flatMap((t) => t.parameters.fields.map((f) => f.name)));
  const reserved = new Set(["z", "tool", "resourcesServer", "domainCall", "requireSeed", "rowFields", "responseOutputText", "State", "args", "undefined"]);

  // Names: the class (or a namespace for function-style modules), the state variable, its type.
  const domainName = isClass ? domain.className! : pickName([lowerCamel(basename(domain.path).replace(/\.m?ts$/, "")), "domain"], new Set([...reserved, ...allFieldNames]));
  const stateName = pickName(isClass ? [lowerCamel(domain.className!), "domain", "session"] : ["state", "session"], new Set([...reserved, ...allFieldNames, domainName]));
  const stateType = isClass ? domainName : "State";
  reserved.add(stateName).add(domainName);

  // Class style: the class, plus a scoring or cleanup function exported beside it; function style: the module.
  const besideClass = isClass ? [domain.score, domain.dispose].filter((m) => m?.kind === "function").map((m) => m!.name) : [];
  besideClass.forEach((n) => reserved.add(n));
  const classImport = domain.exportName === "default" ? undefined : domain.exportName === domainName ? domainName : `${domain.exportName} as ${domainName}`;
  const namedImports = [...(classImport ? [classImport] : []), ...besideClass];
  const importDomain = isClass
    ? `import ${[domain.exportName === "default" ? domainName : "", namedImports.length > 0 ? `{ ${namedImports.join(", ")} }` : ""].filter(Boolean).join(", ")} from "${modulePath}";`
    : `import * as ${domainName} from "${modulePath}";`;
  /** A module function called with the state first: `verify(game, …)` beside a class, `tally.add(state, …)` in a module. */
  const moduleFunction = (functionName: string) => (isClass ? functionName : `${domainName}.${functionName}`);

  // The seed and the state built from it.
  const seedFields = domain.seed.fields;
  const seedRequired = seedFields.some((f) => !f.optional);
  const build = isClass ? (args: string) => `new ${domainName}(${args})` : (args: string) => `${domainName}.${domain.stateFactory!.name}(${args})`;
  const builtFrom = isClass ? domainName : `${domain.stateFactory!.name}()`;
  let stateLine: string;
  if (seedFields.length === 0) {
    stateLine = `state: () => ${build("")},`;
  } else if (domain.seed.passing === "object") {
    stateLine = seedRequired ? `state: (seed) => ${build(`requireSeed(seed, ${JSON.stringify(builtFrom)})`)},` : `state: (seed) => ${build("seed ?? {}")},`;
  } else if (seedRequired) {
    const names = seedFields.map((f) => propertyKey(f.name));
    stateLine = `state: (seed) => {\n    const { ${names.join(", ")} } = requireSeed(seed, ${JSON.stringify(builtFrom)});\n    return ${build(seedFields.map((f) => f.name).join(", "))};\n  },`;
  } else {
    stateLine = `state: (seed) => ${build(seedFields.map((f) => `seed?.${f.name}`).join(", "))},`;
  }

  const tools = domain.tools.map((t) => {
    const callee = isClass ? (args: string) => `${stateName}.${t.memberName}(${args})` : (args: string) => `${moduleFunction(t.memberName)}(${[stateName, args].filter(Boolean).join(", ")})`;
    return [
      `    ${propertyKey(t.toolName)}: tool({`,
      ...(t.description ? [`      description: ${JSON.stringify(t.description)},`] : []),
      `      input: ${objectSource(t.parameters.fields, "      ")},`,
      `      run: ${runArrow(t, stateName, stateType, callee, reserved)},`,
      `    }),`,
    ].join("\n");
  });

  const { score } = domain;
  const textArgument = score.takesText ? "responseOutputText(response)" : "";
  const scoreCall =
    score.kind === "getter"
      ? `${stateName}.${score.name}`
      : score.kind === "method"
        ? `${stateName}.${score.name}(${textArgument})`
        : `${moduleFunction(score.name)}(${[stateName, textArgument].filter(Boolean).join(", ")})`;
  const scoreName = score.kind === "function" ? `${score.name}()` : isClass ? `${domainName}.${score.name}${score.kind === "method" ? "()" : ""}` : score.name;
  const disposeLine = domain.dispose
    ? domain.dispose.kind === "method"
      ? `  disposeState: (${stateName}) => ${stateName}.${domain.dispose.name}(),\n`
      : `  disposeState: (${stateName}) => ${moduleFunction(domain.dispose.name)}(${stateName}),\n`
    : "";

  const runtimeNames = ["domainCall", ...(seedRequired ? ["requireSeed"] : []), ...(seedFields.length > 0 ? ["rowFields"] : [])];
  const imports = [
    // As the project's own environments inside it; elsewhere through src/scaffold/zod.ts (one copy of zod's types).
    `import { z } from "${zodImport(appDir)}";`,
    `import { resourcesServer, tool } from "${lib("src/server/index.ts")}";`,
    ...(score.takesText ? [`import { responseOutputText } from "${lib("src/protocol/index.ts")}";`] : []),
    `import { ${runtimeNames.join(", ")} } from "${lib("src/scaffold/wrap/runtime.ts")}";`,
  ];
  const what = isClass
    ? `${domainName} is built per task from the row's fields; its public methods are the tools and ${scoreName} is the reward.`
    : `Each task's state comes from ${domain.stateFactory!.name}() with the row's fields; the functions that take it are the tools and ${scoreName} is the reward.`;

  return `// Generated by \`gym env wrap\`: a resources server around the domain module
//   ${shownModulePath(domain.path, appDir)}
// ${wrapComment(`${what} The logic stays in the module: regenerate this file when its signatures change.`)}
${imports.join("\n")}
${importDomain}
${isClass ? "" : `\ntype State = Awaited<ReturnType<typeof ${domainName}.${domain.stateFactory!.name}>>;\n`}
export default resourcesServer({
  name: "${classTitle(name)}ResourcesServer",
${seedFields.length > 0 ? `  // The row fields ${isClass ? `${builtFrom} is built from` : `${builtFrom} takes`} (also read from \`ground_truth\`, or out of a one-element list).\n  seed: rowFields(${objectSource(seedFields, "  ")}),\n` : ""}  ${stateLine}
${disposeLine}  tools: {
${tools.join("\n")}
  },
  verify: {
    // ${scoreName} is the reward; a session that was never seeded nor touched scores 0.
    run: (${stateName}${score.takesText ? ", { response }" : ""}) => (${stateName} === undefined ? 0 : ${scoreCall}),
  },
});
`;
}

/**
 * The module's path as shown in comments and READMEs: relative to the root holding `resources_servers/` (two
 * levels above the environment) when it lives there, else absolute.
 */
export function shownModulePath(modulePath: string, envDir: string): string {
  const fromRoot = relative(resolve(envDir, "..", ".."), modulePath);
  return (fromRoot.startsWith("..") || isAbsolute(fromRoot) ? modulePath : fromRoot).split(sep).join("/");
}

/** Wraps text onto comment lines of at most ~110 characters. */
function wrapComment(text: string): string {
  const words = text.split(" ");
  const lines: string[] = [];
  let line = "";
  for (const word of words) {
    if (line && line.length + word.length + 1 > 105) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join("\n// ");
}

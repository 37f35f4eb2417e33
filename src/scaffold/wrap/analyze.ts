// Reads a TypeScript domain module with the compiler's type checker and describes what an environment
// around it needs: the tools (public methods or exported functions, with their parameter types and JSDoc),
// the per-task state (constructor or state factory parameters → seed fields) and the scoring function.
// Nothing is executed here; the module's logic stays where it is.
import { existsSync } from "node:fs";
import { basename, resolve } from "node:path";
import ts from "typescript";
import { ScaffoldError } from "../common.ts";

/** A JSON value type a tool argument or seed field can have (what zod and JSON Schema can express). */
export type ValueType =
  | { kind: "string" }
  | { kind: "number"; integer: boolean }
  | { kind: "boolean" }
  /** One or more literal values of one primitive type (string literals become a zod enum). */
  | { kind: "literal"; values: (string | number | boolean)[] }
  | { kind: "array"; items: ValueType }
  | { kind: "object"; fields: Field[] }
  | { kind: "nullable"; inner: ValueType };

export interface Field {
  name: string;
  type: ValueType;
  optional: boolean;
  description?: string;
}

/**
 * How a method's (or constructor's) parameters become one JSON object: `positional` — each parameter is a
 * property, called as `m(a, b)`; `object` — a single object parameter whose properties are the fields, called
 * as `m(args)`.
 */
export interface ParameterList {
  passing: "positional" | "object";
  fields: Field[];
}

export interface DomainTool {
  /** The tool's name: the member name in snake_case (`letterHint` → `letter_hint`). */
  toolName: string;
  /** The method (class style) or exported function (function style) it calls. */
  memberName: string;
  description: string;
  parameters: ParameterList;
}

/** The scoring member: a method, a getter, or an exported function taking the domain object first. */
export interface DomainScore {
  kind: "method" | "getter" | "function";
  name: string;
  /** The signature asks for the final assistant text (a string parameter after the domain object). */
  takesText: boolean;
  isAsync: boolean;
}

/** A cleanup member (`dispose` or tagged `@dispose`), run when a session's state is dropped. */
export interface DomainDispose {
  kind: "method" | "function";
  name: string;
}

export interface DomainModule {
  /** Absolute path of the module file. */
  path: string;
  style: "class" | "functions";
  /** Class style: the exported class (`exportName` is `default` for a default export). */
  className?: string;
  exportName?: string;
  /** Function style: the exported function that builds the state from the seed. */
  stateFactory?: { name: string; isAsync: boolean };
  /** The fields /seed_session reads from the dataset row, and how they are passed to the constructor / factory. */
  seed: ParameterList;
  tools: DomainTool[];
  score: DomainScore;
  dispose?: DomainDispose;
  /** One line for configs and READMEs: the class (or state factory) JSDoc, else a generic sentence. */
  description: string;
  exportsExampleSeeds: boolean;
  exportsVerifierCases: boolean;
  /** Things skipped or guessed that the user may want to know about. */
  warnings: string[];
}

export interface AnalyzeOptions {
  /** The class to wrap when the module exports several classes with a scoring member. */
  className?: string;
}

const SCORE_NAMES = new Set(["score", "reward", "verify"]);
const STATE_FACTORY_NAMES = new Set(["createState", "create_state", "initialState", "initial_state"]);
const INTEGER_ALIASES = new Set(["int", "Int", "integer", "Integer"]);
const SUPPORTED = "supported: string, number, boolean, literal unions, arrays and plain object types of these, optional parameters";

/** `letterHint` → `letter_hint`; `HTTPStatus` → `http_status`; snake_case stays. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase();
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** In a written union, the one member that is not `null` / `undefined`, if there is exactly one. */
function soleValueNode(union: ts.UnionTypeNode): ts.TypeNode | undefined {
  const values = union.types.filter(
    (t) => t.kind !== ts.SyntaxKind.UndefinedKeyword && !(ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword),
  );
  return values.length === 1 ? values[0] : undefined;
}

function hasTag(node: ts.Node | undefined, tag: string): boolean {
  if (!node) return false;
  // JSDoc sits on the variable statement for `export const f = () => …`.
  const owner = ts.isVariableDeclaration(node) ? node.parent.parent : node;
  return ts.getJSDocTags(owner).some((t) => t.tagName.text === tag);
}

class Analyzer {
  readonly warnings: string[] = [];

  constructor(readonly checker: ts.TypeChecker) {}

  documentation(symbol: ts.Symbol): string {
    const text = oneLine(ts.displayPartsToString(symbol.getDocumentationComment(this.checker)));
    const returns = symbol.getJsDocTags(this.checker).find((t) => t.name === "returns" || t.name === "return");
    const returnsText = returns?.text ? oneLine(ts.displayPartsToString(returns.text)) : "";
    return returnsText ? `${text}${text ? " " : ""}Returns ${returnsText.replace(/^[-–]\s*/, "")}` : text;
  }

  /** The JSON value type of a TypeScript type, or a ScaffoldError naming `where` (e.g. "Wordle.guess: parameter 'word'"). */
  valueType(type: ts.Type, where: string, node: ts.TypeNode | undefined, seen: ts.Type[] = []): { type: ValueType; canBeUndefined: boolean } {
    const checker = this.checker;
    const unsupported = (why: string) =>
      new ScaffoldError(`${where} has type '${checker.typeToString(type)}', ${why} (${SUPPORTED})`);

    let members = type.isUnion() ? type.types : [type];
    const canBeUndefined = members.some((t) => t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void));
    const nullable = members.some((t) => t.flags & ts.TypeFlags.Null);
    members = members.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Null)));
    if (members.length === 0) throw unsupported("which carries no value");
    if (members.some((t) => t.flags & ts.TypeFlags.EnumLiteral)) throw unsupported("a TypeScript enum, which zod cannot produce; use a union of string literals");
    // The written type of the value itself (`Integer` in `Integer | null`), for what the checker erases.
    const valueNode = node && ts.isUnionTypeNode(node) ? soleValueNode(node) : node;

    let value: ValueType;
    if (members.every((t) => t.flags & ts.TypeFlags.BooleanLike)) {
      value = members.length === 2 || members.some((t) => t.flags & ts.TypeFlags.Boolean)
        ? { kind: "boolean" }
        : { kind: "literal", values: [(members[0] as { intrinsicName?: string }).intrinsicName === "true"] };
    } else if (members.every((t) => t.isStringLiteral()) || members.every((t) => t.isNumberLiteral())) {
      value = { kind: "literal", values: members.map((t) => (t as ts.LiteralType).value as string | number) };
    } else if (members.length > 1) {
      throw unsupported("a union of different types, which has no single JSON type");
    } else {
      value = this.singleType(members[0]!, where, valueNode, seen, unsupported);
    }
    return { type: nullable ? { kind: "nullable", inner: value } : value, canBeUndefined };
  }

  private singleType(type: ts.Type, where: string, node: ts.TypeNode | undefined, seen: ts.Type[], unsupported: (why: string) => ScaffoldError): ValueType {
    const checker = this.checker;
    if (type.flags & ts.TypeFlags.String) return { kind: "string" };
    if (type.flags & ts.TypeFlags.Number) {
      const aliasName = node && ts.isTypeReferenceNode(node) ? node.typeName.getText() : undefined;
      return { kind: "number", integer: aliasName !== undefined && INTEGER_ALIASES.has(aliasName) };
    }
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) throw unsupported("which says nothing about the value");
    if (!(type.flags & ts.TypeFlags.Object)) throw unsupported("which JSON cannot carry");
    if (checker.isTupleType(type)) throw unsupported("a tuple");
    if (checker.isArrayType(type)) {
      const [element] = checker.getTypeArguments(type as ts.TypeReference);
      const elementNode = node && ts.isArrayTypeNode(node) ? node.elementType : node && ts.isTypeReferenceNode(node) ? node.typeArguments?.[0] : undefined;
      const items = this.valueType(element!, `${where} (its elements)`, elementNode, seen);
      if (items.canBeUndefined) throw unsupported("whose elements may be undefined");
      return { kind: "array", items: items.type };
    }
    if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) throw unsupported("a function");
    // zod produces plain objects, never instances: a class type (even one of data) cannot be an argument.
    if (type.symbol && type.symbol.flags & ts.SymbolFlags.Class) throw unsupported("a class instance, which JSON cannot carry; use an interface or object type");
    if (seen.includes(type)) throw unsupported("a recursive type");
    if (checker.getIndexInfosOfType(type).length > 0) throw unsupported("an index signature (open-ended keys)");
    const fields: Field[] = [];
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration;
      if (property.flags & ts.SymbolFlags.Method || (declaration && ts.isMethodDeclaration(declaration))) {
        throw unsupported(`a class or object with methods ('${property.name}'), not plain data`);
      }
      const propertyWhere = `${where}, property '${property.name}'`;
      const propertyNode = declaration && (ts.isPropertySignature(declaration) || ts.isPropertyDeclaration(declaration)) ? declaration.type : undefined;
      const { type: fieldType, canBeUndefined } = this.valueType(checker.getTypeOfSymbol(property), propertyWhere, propertyNode, [...seen, type]);
      const description = oneLine(ts.displayPartsToString(property.getDocumentationComment(checker)));
      fields.push({
        name: property.name,
        type: fieldType,
        optional: Boolean(property.flags & ts.SymbolFlags.Optional) || canBeUndefined,
        ...(description ? { description } : {}),
      });
    }
    return { kind: "object", fields };
  }

  /** The fields of a signature: a lone parameter of a plain object type gives its properties, else each parameter is one. */
  parameterList(signature: ts.Signature, where: string, skipFirst = false): ParameterList {
    const checker = this.checker;
    const parameters = signature.getParameters().slice(skipFirst ? 1 : 0);
    if (signature.typeParameters?.length) throw new ScaffoldError(`${where} is generic; a tool's parameter types must be concrete`);
    const described = parameters.map((parameter) => {
      const declaration = parameter.valueDeclaration as ts.ParameterDeclaration | undefined;
      if (!declaration) throw new ScaffoldError(`${where}: parameter '${parameter.name}' has no declaration`);
      if (declaration.dotDotDotToken) throw new ScaffoldError(`${where}: rest parameter '${parameter.name}' cannot be a tool argument (${SUPPORTED})`);
      const type = checker.getTypeOfSymbolAtLocation(parameter, declaration);
      return { parameter, declaration, type };
    });

    if (described.length === 1) {
      const [{ declaration, type }] = described as [(typeof described)[0]];
      const withoutUndefined = type.isUnion() ? type.types.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void))) : [type];
      const lone = withoutUndefined.length === 1 ? withoutUndefined[0]! : undefined;
      if (lone && lone.flags & ts.TypeFlags.Object && !checker.isArrayType(lone) && !checker.isTupleType(lone) && lone.getCallSignatures().length === 0) {
        const name = ts.isIdentifier(declaration.name) ? `parameter '${declaration.name.text}'` : "its destructured parameter";
        const object = this.valueType(lone, `${where}: ${name}`, declaration.type);
        if (object.type.kind === "object") return { passing: "object", fields: object.type.fields };
      }
    }

    return {
      passing: "positional",
      fields: described.map(({ parameter, declaration, type }) => {
        if (!ts.isIdentifier(declaration.name)) {
          throw new ScaffoldError(`${where}: a destructured parameter must be the only parameter (its properties become the fields)`);
        }
        const { type: valueType, canBeUndefined } = this.valueType(type, `${where}: parameter '${parameter.name}'`, declaration.type);
        const description = oneLine(ts.displayPartsToString(parameter.getDocumentationComment(checker))).replace(/^[-–]\s*/, "");
        return {
          name: parameter.name,
          type: valueType,
          optional: checker.isOptionalParameter(declaration) || canBeUndefined,
          ...(description ? { description } : {}),
        };
      }),
    };
  }

  onlySignature(type: ts.Type, where: string): ts.Signature {
    const signatures = type.getCallSignatures();
    if (signatures.length !== 1) throw new ScaffoldError(`${where} has ${signatures.length} call signatures; give it exactly one (or mark it @internal)`);
    return signatures[0]!;
  }

  isAsync(signature: ts.Signature): boolean {
    const returnType = signature.getReturnType();
    return this.checker.getAwaitedType(returnType) !== returnType;
  }

  /** Checks that a scoring signature returns a number or `{ reward: number, … }` (possibly through a Promise). */
  checkReward(resultType: ts.Type, where: string): void {
    const checker = this.checker;
    const returned = checker.getAwaitedType(resultType) ?? resultType;
    const members = returned.isUnion() ? returned.types : [returned];
    const ok = members.every((t) => {
      if (t.flags & ts.TypeFlags.NumberLike) return true;
      const reward = t.getProperty("reward");
      return reward !== undefined && Boolean(checker.getTypeOfSymbol(reward).flags & ts.TypeFlags.NumberLike);
    });
    if (!ok) throw new ScaffoldError(`${where} returns '${checker.typeToString(returned)}'; a scoring function must return a number or { reward: number, … }`);
  }

  /** Whether the parameters after the domain object ask for the final assistant text: none, or one string. */
  takesText(signature: ts.Signature, where: string, skipFirst: boolean): boolean {
    const rest = signature.getParameters().slice(skipFirst ? 1 : 0);
    if (rest.length === 0) return false;
    const declaration = rest[0]!.valueDeclaration as ts.ParameterDeclaration;
    const type = this.checker.getTypeOfSymbolAtLocation(rest[0]!, declaration);
    const nonUndefined = type.isUnion() ? type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined)) : [type];
    if (rest.length > 1 || !nonUndefined.every((t) => t.flags & ts.TypeFlags.StringLike)) {
      throw new ScaffoldError(`${where}: a scoring function takes ${skipFirst ? "the domain object and " : ""}at most one string (the final assistant text)`);
    }
    return true;
  }
}

interface ExportedCallable {
  name: string;
  symbol: ts.Symbol;
  declaration: ts.Declaration;
  signature: ts.Signature;
}

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  // No DOM: a domain module is plain logic, and the DOM declarations are most of the checker's start-up time.
  lib: ["lib.es2023.d.ts"],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  allowImportingTsExtensions: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
};

// The standard library's declarations never change: parsed once per process, shared by every analysis.
const libSourceFiles = new Map<string, ts.SourceFile | undefined>();
let sharedHost: ts.CompilerHost | undefined;

function compilerHost(): ts.CompilerHost {
  if (sharedHost) return sharedHost;
  const host = ts.createCompilerHost(COMPILER_OPTIONS, true);
  const libDir = host.getDefaultLibLocation?.() ?? "";
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!libDir || !fileName.startsWith(libDir)) return getSourceFile(fileName, languageVersion, onError, shouldCreate);
    if (!libSourceFiles.has(fileName)) libSourceFiles.set(fileName, getSourceFile(fileName, languageVersion, onError, shouldCreate));
    return libSourceFiles.get(fileName);
  };
  return (sharedHost = host);
}

interface ModuleExport {
  symbol: ts.Symbol;
  /** The name it is imported by (`export { a as b }` is `b`; a default export is `default`). */
  exportName: string;
}

function loadModule(modulePath: string): { checker: ts.TypeChecker; exports: ModuleExport[] } {
  const path = resolve(modulePath);
  if (!existsSync(path)) throw new ScaffoldError(`domain module ${path} does not exist`);
  if (!/\.(ts|mts)$/.test(path)) throw new ScaffoldError(`domain module ${path} must be a TypeScript file (.ts or .mts)`);
  const program = ts.createProgram({ rootNames: [path], options: COMPILER_OPTIONS, host: compilerHost() });
  const sourceFile = program.getSourceFile(path)!;
  const syntax = program.getSyntacticDiagnostics(sourceFile);
  if (syntax.length > 0) {
    const first = syntax[0]!;
    const { line } = sourceFile.getLineAndCharacterOfPosition(first.start ?? 0);
    throw new ScaffoldError(`${path}:${line + 1}: ${ts.flattenDiagnosticMessageText(first.messageText, "\n")}`);
  }
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(sourceFile);
  if (!moduleSymbol) throw new ScaffoldError(`${path} exports nothing: a domain module exports a class or functions`);
  const exports = checker.getExportsOfModule(moduleSymbol).map((exported) => ({
    symbol: exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported,
    exportName: exported.name,
  }));
  return { checker, exports };
}

function callableExports(analyzer: Analyzer, exports: ModuleExport[]): ExportedCallable[] {
  const callables: ExportedCallable[] = [];
  for (const { symbol, exportName: name } of exports) {
    const declaration = symbol.valueDeclaration;
    if (!declaration || symbol.flags & ts.SymbolFlags.Class) continue;
    const isFunction = ts.isFunctionDeclaration(declaration);
    const isArrow = ts.isVariableDeclaration(declaration) && declaration.initializer !== undefined && (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer));
    if (!isFunction && !isArrow) continue;
    if (name === "default") continue;
    const type = analyzer.checker.getTypeOfSymbolAtLocation(symbol, declaration);
    callables.push({ name, symbol, declaration, signature: analyzer.onlySignature(type, `${name}()`) });
  }
  return callables;
}

const isScoreLike = (name: string, declaration: ts.Node | undefined) => hasTag(declaration, "reward") || SCORE_NAMES.has(name);

/** Among named candidates, one tagged @reward wins; otherwise exactly one may remain. */
function pickOne<T extends { name: string; tagged: boolean }>(candidates: T[], where: string, tag: string, names: string): T | undefined {
  const tagged = candidates.filter((c) => c.tagged);
  const pool = tagged.length > 0 ? tagged : candidates;
  if (pool.length > 1) throw new ScaffoldError(`${where} has several ${names} (${pool.map((c) => c.name).join(", ")}); tag the one to use with @${tag}`);
  return pool[0];
}

const isHidden = (name: string, declaration: ts.Node | undefined) =>
  name.startsWith("_") || name.startsWith("#") || name.startsWith("__") || hasTag(declaration, "internal") ||
  (declaration !== undefined && ts.isClassElement(declaration) && declaration.name !== undefined && ts.isPrivateIdentifier(declaration.name)) ||
  (declaration !== undefined && ts.canHaveModifiers(declaration) && Boolean(ts.getCombinedModifierFlags(declaration as ts.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)));

function describeTools(analyzer: Analyzer, entries: { name: string; where: string; signature: ts.Signature; symbol: ts.Symbol }[], skipFirst: boolean): DomainTool[] {
  const tools: DomainTool[] = [];
  const byToolName = new Map<string, string>();
  for (const { name, where, signature, symbol } of entries) {
    const toolName = snakeCase(name);
    if (!/^[A-Za-z0-9_.-]+$/.test(toolName)) throw new ScaffoldError(`${where}: '${toolName}' is not a valid tool name (letters, digits, _ . -)`);
    if (["verify", "seed_session", "aggregate_metrics", "mcp", "tools", "cleanup"].includes(toolName)) {
      throw new ScaffoldError(`${where}: the tool name '${toolName}' is reserved by the resources server; rename it or mark it @internal`);
    }
    const clash = byToolName.get(toolName);
    if (clash) throw new ScaffoldError(`${where} and ${clash} would both be the tool '${toolName}'; rename one or mark it @internal`);
    byToolName.set(toolName, where);
    const description = analyzer.documentation(symbol);
    if (!description) analyzer.warnings.push(`${where} has no JSDoc description: the model sees the tool '${toolName}' without one`);
    tools.push({ toolName, memberName: name, description, parameters: analyzer.parameterList(signature, where, skipFirst) });
  }
  if (tools.length === 0) throw new ScaffoldError("the domain module offers no tools: no public method (or exported function taking the state) is left after the scoring and private members");
  return tools;
}

function analyzeClass(analyzer: Analyzer, { symbol: classSymbol, exportName }: ModuleExport, scoreFunction: ExportedCallable | undefined, callables: ExportedCallable[]): Omit<DomainModule, "path" | "exportsExampleSeeds" | "exportsVerifierCases" | "warnings"> {
  const checker = analyzer.checker;
  const declaredName = (classSymbol.valueDeclaration as ts.ClassDeclaration | undefined)?.name?.text;
  const className = declaredName ?? (classSymbol.name === "default" ? "Domain" : classSymbol.name);
  const instanceType = checker.getDeclaredTypeOfSymbol(classSymbol);
  const classType = checker.getTypeOfSymbolAtLocation(classSymbol, classSymbol.valueDeclaration!);

  // The seed: the constructor's parameters.
  const constructors = classType.getConstructSignatures();
  if (constructors.length > 1) throw new ScaffoldError(`${className} has ${constructors.length} constructor signatures; give it exactly one`);
  const seed: ParameterList = constructors[0] ? analyzer.parameterList(constructors[0], `${className} constructor`) : { passing: "positional", fields: [] };

  const methods: { name: string; symbol: ts.Symbol; declaration: ts.Declaration; tagged: boolean }[] = [];
  const getters: typeof methods = [];
  for (const member of checker.getPropertiesOfType(instanceType)) {
    const declaration = member.valueDeclaration ?? member.declarations?.[0];
    if (!declaration) continue;
    if (member.flags & ts.SymbolFlags.Method) methods.push({ name: member.name, symbol: member, declaration, tagged: hasTag(declaration, "reward") });
    else if (member.flags & ts.SymbolFlags.GetAccessor) getters.push({ name: member.name, symbol: member, declaration: member.declarations!.find(ts.isGetAccessor) ?? declaration, tagged: hasTag(member.declarations!.find(ts.isGetAccessor), "reward") });
    else if (member.flags & ts.SymbolFlags.Property && !isHidden(member.name, declaration) && checker.getTypeOfSymbol(member).getCallSignatures().length > 0) {
      analyzer.warnings.push(`${className}.${member.name} is a function-valued property, not a method: it is not a tool`);
    }
  }

  // The reward: a @reward-tagged or score/reward/verify method or getter, else an exported function taking the instance.
  const scoreCandidates = [...methods, ...getters].filter((m) => !isHidden(m.name, m.declaration) && isScoreLike(m.name, m.declaration));
  const chosen = pickOne(scoreCandidates, className, "reward", "scoring members");
  let score: DomainScore;
  if (chosen) {
    const where = `${className}.${chosen.name}`;
    if (chosen.symbol.flags & ts.SymbolFlags.GetAccessor) {
      const getterType = checker.getTypeOfSymbol(chosen.symbol);
      analyzer.checkReward(getterType, where);
      score = { kind: "getter", name: chosen.name, takesText: false, isAsync: checker.getAwaitedType(getterType) !== getterType };
    } else {
      const signature = analyzer.onlySignature(checker.getTypeOfSymbol(chosen.symbol), where);
      analyzer.checkReward(signature.getReturnType(), where);
      score = { kind: "method", name: chosen.name, takesText: analyzer.takesText(signature, where, false), isAsync: analyzer.isAsync(signature) };
    }
  } else if (scoreFunction) {
    const where = `${scoreFunction.name}()`;
    analyzer.checkReward(scoreFunction.signature.getReturnType(), where);
    score = { kind: "function", name: scoreFunction.name, takesText: analyzer.takesText(scoreFunction.signature, where, true), isAsync: analyzer.isAsync(scoreFunction.signature) };
  } else {
    throw noScoreError(className);
  }

  const disposeMethod = pickOne(
    methods.filter((m) => !isHidden(m.name, m.declaration) && (m.name === "dispose" || hasTag(m.declaration, "dispose"))).map((m) => ({ ...m, tagged: hasTag(m.declaration, "dispose") })),
    className, "dispose", "cleanup methods",
  );
  const disposeFunction = disposeMethod ? undefined : callables.find((c) => c.name === "dispose" || hasTag(c.declaration, "dispose"));
  const dispose: DomainDispose | undefined = disposeMethod ? { kind: "method", name: disposeMethod.name } : disposeFunction ? { kind: "function", name: disposeFunction.name } : undefined;

  const toolEntries = methods
    .filter((m) => !isHidden(m.name, m.declaration) && !(score.kind === "method" && m.name === score.name) && m.name !== dispose?.name)
    .map((m) => ({ ...m, where: `${className}.${m.name}`, signature: analyzer.onlySignature(checker.getTypeOfSymbol(m.symbol), `${className}.${m.name}`) }));
  const description = analyzer.documentation(classSymbol) || `A resources server around the ${className} domain module.`;
  return { style: "class", className, exportName, seed, tools: describeTools(analyzer, toolEntries, false), score, dispose, description };
}

function noScoreError(subject: string): ScaffoldError {
  return new ScaffoldError(
    `${subject}: no scoring function — export a function (or give the class a method or getter) named score, reward or verify, or tag one with @reward; it returns a number or { reward, … }`,
  );
}

function analyzeFunctions(analyzer: Analyzer, callables: ExportedCallable[], scoreFunction: ExportedCallable | undefined, modulePath: string): Omit<DomainModule, "path" | "exportsExampleSeeds" | "exportsVerifierCases" | "warnings"> {
  const checker = analyzer.checker;
  const file = basename(modulePath);
  if (!scoreFunction) throw noScoreError(file);
  const factory = pickOne(
    callables.filter((c) => STATE_FACTORY_NAMES.has(c.name) || hasTag(c.declaration, "state")).map((c) => ({ ...c, tagged: hasTag(c.declaration, "state") })),
    file, "state", "state factories",
  );
  if (!factory) {
    throw new ScaffoldError(
      `${file} exports no class with a scoring member, so it is read as function-style: it then needs an exported state factory — createState(...) or a function tagged @state — whose parameters are the seed and whose result every tool takes first`,
    );
  }
  const factoryReturn = factory.signature.getReturnType();
  const stateType = checker.getAwaitedType(factoryReturn) ?? factoryReturn;
  const takesState = (c: ExportedCallable) => {
    const first = c.signature.getParameters()[0];
    return first !== undefined && checker.isTypeAssignableTo(stateType, checker.getTypeOfSymbolAtLocation(first, first.valueDeclaration!));
  };
  const scoreWhere = `${scoreFunction.name}()`;
  if (!takesState(scoreFunction)) throw new ScaffoldError(`${scoreWhere} must take the state (what ${factory.name}() returns) as its first parameter`);
  analyzer.checkReward(scoreFunction.signature.getReturnType(), scoreWhere);
  const score: DomainScore = { kind: "function", name: scoreFunction.name, takesText: analyzer.takesText(scoreFunction.signature, scoreWhere, true), isAsync: analyzer.isAsync(scoreFunction.signature) };

  const disposeFunction = pickOne(
    callables.filter((c) => c.name === "dispose" || hasTag(c.declaration, "dispose")).map((c) => ({ ...c, tagged: hasTag(c.declaration, "dispose") })),
    file, "dispose", "cleanup functions",
  );
  const toolEntries = callables.filter((c) => {
    if ([factory.name, scoreFunction.name, disposeFunction?.name].includes(c.name) || isHidden(c.name, c.declaration)) return false;
    if (takesState(c)) return true;
    analyzer.warnings.push(`${c.name}() does not take the state first: it is not a tool`);
    return false;
  });
  return {
    style: "functions",
    stateFactory: { name: factory.name, isAsync: analyzer.isAsync(factory.signature) },
    seed: analyzer.parameterList(factory.signature, `${factory.name}()`),
    tools: describeTools(analyzer, toolEntries.map((c) => ({ ...c, where: `${c.name}()` })), true),
    score,
    dispose: disposeFunction ? { kind: "function", name: disposeFunction.name } : undefined,
    description: analyzer.documentation(factory.symbol) || `A resources server around ${file}.`,
  };
}

/**
 * Describes a domain module for `gym env wrap`. Class style: the one exported class with a scoring member
 * (or `options.className`); function style: an exported state factory, functions taking the state first,
 * and a scoring function. Throws a ScaffoldError naming the member and parameter that cannot be wrapped.
 */
export function analyzeDomainModule(modulePath: string, options: AnalyzeOptions = {}): DomainModule {
  const path = resolve(modulePath);
  const { checker, exports } = loadModule(path);
  const analyzer = new Analyzer(checker);
  const callables = callableExports(analyzer, exports);
  const scoreFunction = pickOne(
    callables.filter((c) => isScoreLike(c.name, c.declaration)).map((c) => ({ ...c, tagged: hasTag(c.declaration, "reward") })),
    basename(path), "reward", "scoring functions",
  );

  const classes = exports.filter((e) => e.symbol.flags & ts.SymbolFlags.Class);
  let chosenClass: ModuleExport | undefined;
  if (options.className) {
    chosenClass = classes.find((e) => e.symbol.name === options.className || e.exportName === options.className);
    if (!chosenClass) throw new ScaffoldError(`${basename(path)} exports no class '${options.className}' (exported classes: ${classes.map((e) => e.exportName).join(", ") || "none"})`);
  } else {
    const withScore = classes.filter(({ symbol }) => {
      const instance = checker.getDeclaredTypeOfSymbol(symbol);
      const own = checker.getPropertiesOfType(instance).some((m) => isScoreLike(m.name, m.valueDeclaration ?? m.declarations?.[0]) && !isHidden(m.name, m.valueDeclaration));
      const first = scoreFunction?.signature.getParameters()[0];
      const byFunction = first !== undefined && checker.isTypeAssignableTo(instance, checker.getTypeOfSymbolAtLocation(first, first.valueDeclaration!)) && !(checker.getTypeOfSymbolAtLocation(first, first.valueDeclaration!).flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown));
      return own || byFunction;
    });
    if (withScore.length > 1) throw new ScaffoldError(`${basename(path)} exports several classes with a scoring member (${withScore.map((e) => e.exportName).join(", ")}); choose one with --class`);
    chosenClass = withScore[0];
  }

  const described = chosenClass ? analyzeClass(analyzer, chosenClass, scoreFunction, callables) : analyzeFunctions(analyzer, callables, scoreFunction, path);
  const exportNames = new Set(exports.map((e) => e.exportName));
  return {
    path,
    ...described,
    exportsExampleSeeds: exportNames.has("EXAMPLE_SEEDS"),
    exportsVerifierCases: exportNames.has("VERIFIER_CASES"),
    warnings: analyzer.warnings,
  };
}

// ether0's reward functions (Future-House/ether0, ether0.rewards.EVAL_FUNCTIONS), as NeMo Gym calls them: the answer
// and the solution's answer_info, soft=false, test=false, no metadata. Molecules are RDKit's (src/ports/chem/rdkit.ts).
// Three things ether0 relies on cannot be had here; a reward that needs one is a 501 naming it, never a guess:
//   - its molecule-reasonableness filters, the molbloom files rings.bloom and fingerprints.bloom of its repository
//     (every open-ended design answer passes them), except where the answer is the reference molecule itself, whose
//     ring systems and fingerprint bits ether0 always accepts;
//   - exmol's get_functional_groups (functional-group designs, and solubility edits constrained by groups);
//   - its remote verifier server (ether0-serve: solubility model, purchasability, forward reaction prediction),
//     unless ETHER0_REMOTES_API_BASE_URL names one, as for ether0 itself (remotes.ts).
// Every check that comes before the first such need is made, so an answer that fails one scores 0 as in ether0.
import { HttpError } from "../../src/protocol/errors.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonCasefold, pythonLen, pythonStrip } from "../../src/python/str.ts";
import { pythonFloat } from "../../src/python/numbers.ts";
import { jsonTruthy } from "../../src/python/json-value.ts";
import { evalPythonLiteral } from "../../src/ports/reasoning-gym/python-literal.ts";
import type { PyValue } from "../../src/python/values.ts";
import { fetchForwardReaction, fetchPurchasable, fetchSolubility, remotesBaseUrl } from "./remotes.ts";
import { heavyAtomsOf, molFormula, molFromSmiles, morganBits, tanimoto, hasSubstructMatch, type Molecule } from "../../src/ports/chem/rdkit.ts";

export const NEEDS = {
  bloom: "ether0's molecule-reasonableness filters (rings.bloom and fingerprints.bloom, molbloom files of the ether0 repository, not available here)",
  exmol: "exmol's get_functional_groups (the exmol package, not available here)",
  remote: "ether0's remote verifier server (ether0-serve's solubility, purchasability and forward-reaction models): set ETHER0_REMOTES_API_BASE_URL (and ETHER0_REMOTES_API_TOKEN) to one",
} as const;

/** A 501: the reward needs what cannot be had here. */
export class Ether0Unavailable extends HttpError {
  constructor(readonly needs: (keyof typeof NEEDS)[], evalFunction: string) {
    super(501, `ether0: ${evalFunction} needs ${needs.map((need) => NEEDS[need]).join(", and ")}`);
  }
}

/** An exception inside a reward function: NeMo Gym logs it and scores the row 0.0. */
export class RewardFunctionError extends Error {}

// ---- names ----

const SUPERSCRIPT = compilePythonRegex(String.raw`\^{([\d,]+)}`);
const ITALICS = compilePythonRegex("{([a-zA-Z])}");
const USELESS_PARENTHESES = compilePythonRegex(String.raw`([-\d])[\(\[{]([A-Za-z0-9]+)[\]\)}]-`);

/** ether0's normalize_iupac: casefolded, ^{n} as ^(n), {x} as x, `$` and `~` dropped, simple parentheses dropped, `^` dropped, spaces as `-`. */
export function normalizeIupac(name: string): string {
  let s = pythonCasefold(pythonStrip(name));
  s = SUPERSCRIPT.sub(String.raw`^(\1)`, s);
  s = ITALICS.sub(String.raw`\1`, s);
  s = s.replaceAll("$", "").replaceAll("~", "");
  s = USELESS_PARENTHESES.sub(String.raw`\1\2-`, s);
  return s.replaceAll("^", "").replaceAll(" ", "-");
}

/** ether0's normalize_unicodes: NFKC, dashes and other punctuation (Pd, Po) removed. */
export const normalizeUnicodes = (text: string): string => text.normalize("NFKC").replace(/[\p{Pd}\p{Po}]/gu, "").replaceAll("-", "");

const strEval = (yhat: string, y: string) => (normalizeIupac(yhat) === normalizeIupac(y) ? 1 : 0);

function rxnEval(yhat: string, y: string): number {
  if (normalizeIupac(yhat) === normalizeIupac(y)) return 1;
  return normalizeUnicodes(normalizeIupac(yhat)) === normalizeUnicodes(normalizeIupac(y)) ? 1 : 0;
}

// ---- molecules ----

/** ether0's get_largest_mol: of the `.`-separated parts longer than 3 characters that parse, the one with most atoms (the first on a tie). */
async function largestMol(smiles: string): Promise<Molecule | undefined> {
  let largest: Molecule | undefined;
  for (const part of smiles.split(".")) {
    if (pythonLen(part) <= 3) continue;
    const mol = await molFromSmiles(part);
    if (mol && (largest === undefined || mol.numAtoms > largest.numAtoms)) largest = mol;
  }
  return largest;
}

const exactMatch = (a: Molecule, b: Molecule) => (a.canonicalSmiles === b.canonicalSmiles ? 1 : 0);

/** ether0's tanimoto_similarity: 0 for a missing molecule or heavy-atom counts further apart than `atomThreshold` (relative). */
async function tanimotoSimilarity(a: { mol: Molecule; smiles: string } | undefined, b: { mol: Molecule; smiles: string } | undefined, atomThreshold = 10): Promise<number> {
  if (!a || !b) return 0;
  const denominator = Math.max(a.mol.numHeavyAtoms, b.mol.numHeavyAtoms);
  if (denominator > 0 && Math.abs(a.mol.numHeavyAtoms - b.mol.numHeavyAtoms) / denominator > atomThreshold) return 0;
  return tanimoto((await morganBits(a.smiles))!, (await morganBits(b.smiles))!);
}

/**
 * ether0's is_reasonable_molecule up to its bloom filters: one molecule, or one and a counterion of at most 5 heavy
 * atoms. Past that, its ring systems and fingerprint bits must be known ones — a 501 — unless the molecule is the
 * reference itself (`isReference`), whose ring systems and bits ether0 always accepts.
 */
function isReasonableMolecule(mol: Molecule, evalFunction: string, isReference = false, alsoNeeds: (keyof typeof NEEDS)[] = []): boolean {
  const fragments = [...mol.fragments].sort((a, b) => b.length - a.length);
  if (fragments.length > 2) return false;
  if (fragments.length === 2 && heavyAtomsOf(mol, fragments[1]!) > 5) return false;
  const needs = [...(isReference ? [] : (["bloom"] as const)), ...alsoNeeds];
  if (needs.length === 0) return true;
  throw new Ether0Unavailable(needs, evalFunction);
}

/** The remote server, when configured; else a 501 naming it (and whatever else the reward would need). */
const remoteNeeded = (): (keyof typeof NEEDS)[] => (remotesBaseUrl() ? [] : ["remote"]);

/** `ast.literal_eval(y)` as a sequence; anything else is the exception NeMo Gym scores 0. */
function literalSequence(y: string): PyValue[] {
  let value: PyValue;
  try {
    value = evalPythonLiteral(y);
  } catch (error) {
    throw new RewardFunctionError(`ast.literal_eval(${JSON.stringify(y)}): ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw new RewardFunctionError(`ast.literal_eval(${JSON.stringify(y)}) is not a tuple or list`);
  return value;
}

const pyStr = (value: PyValue | undefined, what: string): string => {
  if (typeof value !== "string") throw new RewardFunctionError(`${what} is not a string`);
  return value;
};

async function productEval(yhat: string, y: string): Promise<number> {
  const predicted = await largestMol(yhat);
  const truth = await largestMol(y);
  if (!predicted || !truth) return 0;
  return exactMatch(predicted, truth);
}

async function validMolEval(yhat: string, y: string): Promise<number> {
  if (!yhat) return 0;
  // The answer as a whole SMILES first, then as the completion of the given start.
  for (const smiles of [yhat, y + yhat]) {
    if (!smiles.startsWith(y)) continue;
    const mol = await molFromSmiles(smiles);
    if (mol) return isReasonableMolecule(mol, "valid_mol_eval") ? 1 : 0;
  }
  return 0;
}

async function formulaEval(yhat: string, y: string): Promise<number> {
  const predicted = await molFromSmiles(yhat);
  const truth = await molFromSmiles(y);
  if (!predicted || !truth) return 0;
  if (molFormula(predicted) !== molFormula(truth)) return 0;
  if (!isReasonableMolecule(predicted, "formula_eval", predicted.canonicalSmiles === truth.canonicalSmiles)) return 0;
  const similarity = await tanimotoSimilarity({ mol: predicted, smiles: yhat }, { mol: truth, smiles: y });
  return similarity >= 0.7 ? 1 : 0;
}

async function functionalGroupEval(yhat: string, y: string): Promise<number> {
  const predicted = await molFromSmiles(yhat);
  if (!predicted) return 0;
  const args = literalSequence(y);
  if (args.length < 2) throw new RewardFunctionError(`${y}: expected (formula, groups)`);
  const [formula, groups] = args;
  // ether0 lower-cases the groups before anything else: they must be strings.
  const iterable = typeof groups === "string" || groups instanceof Map || (Array.isArray(groups) && groups.every((group) => typeof group === "string"));
  if (!iterable) throw new RewardFunctionError(`${y}: the groups are not strings`);
  if (molFormula(predicted) !== formula) return 0;
  // exmol reads the groups first; whether they matter depends on the reasonableness checks.
  return isReasonableMolecule(predicted, "functional_group_eval", false, ["exmol"]) ? 1 : 0;
}

async function solubilityEval(yhat: string, y: string): Promise<number> {
  if (yhat.includes(".")) return 0;
  const predicted = await molFromSmiles(yhat);
  if (!predicted) return 0;
  const args = literalSequence(y);
  if (args.length < 3) throw new RewardFunctionError(`${y}: expected (constraint type, constraint, target, direction)`);
  const [constraintType, constraintData] = args;
  try {
    pythonFloat(args[2]);
  } catch (error) {
    throw new RewardFunctionError(`float(${String(args[2])}): ${(error as Error).message}`);
  }
  let isReference = false;
  if (constraintType === "scaffold") {
    const scaffold = pyStr(constraintData, "the scaffold");
    const reference = await molFromSmiles(scaffold);
    if (!reference) throw new RewardFunctionError(`the scaffold ${scaffold} is not a molecule`);
    if (!(await hasSubstructMatch(yhat, scaffold))) return 0;
    isReference = predicted.canonicalSmiles === reference.canonicalSmiles;
  } else if (constraintType === "groups") {
    throw new Ether0Unavailable(["exmol", "bloom", ...remoteNeeded()], "sol_eval");
  } else if (constraintType === "tanimoto") {
    const referenceSmiles = pyStr(constraintData, "the reference molecule");
    const reference = await molFromSmiles(referenceSmiles);
    const similarity = await tanimotoSimilarity({ mol: predicted, smiles: yhat }, reference && { mol: reference, smiles: referenceSmiles }, 0.2);
    if (similarity < 0.7) return 0;
    isReference = predicted.canonicalSmiles === reference!.canonicalSmiles;
  } else {
    throw new RewardFunctionError(`Unknown constraint type: ${String(constraintType)}`);
  }
  if (!isReasonableMolecule(predicted, "sol_eval", isReference, remoteNeeded())) return 0;
  const solubility = await fetchSolubility(yhat);
  if (solubility === undefined) return 0;
  // Typical solubility accuracy, less 0.01 so that restating the target's 0.5 change does not match.
  return Math.abs(solubility - pythonFloat(args[2])) > 0.5 - 0.01 ? 0 : 1;
}

const REACTION = compilePythonRegex(String.raw`^[^J][a-z0-9@+\-\[\]\(\)\\\/%=#$\.]{6,}>[a-z0-9@+\-\[\]\(\)\\\/%=#$\.]{0,}>`, { ignoreCase: true });

async function forwardReactionEval(yhat: string, y: string): Promise<number> {
  if (!yhat.includes(">") || !yhat.includes(".")) return 0;
  if (yhat.split(">").length - 1 > 2) return 0;
  if (!REACTION.match(yhat)) return 0;
  const product = await molFromSmiles(y);
  if (!product) return 0;
  const sides = yhat.split(">");
  const parseAll = async (smiles: string[]) => Promise.all(smiles.map((s) => molFromSmiles(s)));
  const reactants = await parseAll(sides[0]!.split("."));
  if (reactants.some((m) => m === undefined)) return 0;
  const reagents = await parseAll(sides[1]!.split(".").filter((s) => pythonStrip(s) !== ""));
  if (reagents.some((m) => m === undefined)) return 0;
  const products = await parseAll(sides[2]!.split(".").filter((s) => pythonStrip(s) !== ""));
  if (products.length > 0) {
    if (products.some((m) => m === undefined)) return 0;
    if (!products.some((m) => exactMatch(m!, product) === 1)) return 0;
  }
  if ([...reactants, ...reagents].some((m) => exactMatch(m!, product) === 1)) return 0;
  // Purchasability of the reactants and the predicted product come from the remote models.
  if (!remotesBaseUrl()) throw new Ether0Unavailable(["remote"], "rxn_forward");
  const reactantSmiles = sides[0]!.split(".");
  const purchasable = await fetchPurchasable(reactantSmiles);
  // Molecules of at most 4 heavy atoms (solvents, counterions) count as purchasable.
  const small = async (smiles: string) => ((await molFromSmiles(smiles))?.numHeavyAtoms ?? Infinity) <= 4;
  for (const smiles of reactantSmiles) if (!jsonTruthy(purchasable[smiles]) && !(await small(smiles))) return 0;
  const predictedSmiles = await fetchForwardReaction(yhat);
  if (predictedSmiles === undefined) return 0;
  const predicted = typeof predictedSmiles === "string" ? await molFromSmiles(predictedSmiles) : undefined;
  if (!predicted) return 0;
  return exactMatch(predicted, product);
}

async function validMoleculeEval(yhat: string): Promise<number> {
  if (!yhat) return 0;
  return (await molFromSmiles(yhat)) ? 1 : 0;
}

type EvalFunction = (yhat: string, y: string) => number | Promise<number>;

/** ether0's EVAL_FUNCTIONS, by name. */
export const EVAL_FUNCTIONS: Readonly<Record<string, EvalFunction>> = {
  str_eval: strEval,
  valid_mol_eval: validMolEval,
  caption_eval: productEval,
  product_eval: productEval,
  rxn_eval: rxnEval,
  formula_eval: formulaEval,
  functional_group_eval: functionalGroupEval,
  sol_eval: solubilityEval,
  rxn_forward: forwardReactionEval,
  should_not_answer_eval: strEval,
  should_answer_eval: validMoleculeEval,
};

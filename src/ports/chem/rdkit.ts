// RDKit (MinimalLib compiled to WebAssembly, @rdkit/rdkit) for what ether0's rewards ask of Python's RDKit: parse a
// SMILES as `Chem.MolFromSmiles` does (sanitized; None where it fails), canonical isomeric SMILES, atom counts, the
// fragments, `CalcMolFormula`, Morgan fingerprints (radius 2, 2048 bits, as `GetMorganFingerprintAsBitVect`), Tanimoto
// similarity and substructure matching. Every WebAssembly molecule is freed as soon as it has been read.
import rdkitPackage, { type MainModule, type Mol } from "@rdkit/rdkit";

// A CommonJS module: its default export is the factory its types declare as the module's default.
const initRDKitModule = rdkitPackage as unknown as (options?: unknown) => Promise<MainModule>;
let module: Promise<MainModule> | undefined;

/** The WebAssembly module, loaded once (about 0.1 s). */
export const loadRdkit = (): Promise<MainModule> =>
  (module ??= initRDKitModule().then((rdkit) => {
    // RDKit logs every SMILES it cannot parse to stderr; a failed parse is an answer here, not an event.
    rdkit.disable_logging();
    return rdkit;
  }));

// Atomic number → symbol.
const ELEMENTS = (
  "* H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd " +
  "In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu " +
  "Am Cm Bk Cf Es Fm Md No Lr Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og"
).split(" ");

interface Atom {
  z: number;
  /** Hydrogens on the atom (implicit and explicit), not H atoms of the graph. */
  hydrogens: number;
  charge: number;
}

/** A parsed molecule: what the rewards read of it, taken out of WebAssembly at once. */
export interface Molecule {
  /** `MolToSmiles(mol)`: canonical, isomeric. */
  readonly canonicalSmiles: string;
  readonly atoms: readonly Atom[];
  /** Atom indices of each connected fragment, in RDKit's order (by lowest atom index). */
  readonly fragments: readonly (readonly number[])[];
  /** `GetNumAtoms()`: the graph's atoms (explicit H atoms included). */
  readonly numAtoms: number;
  /** `GetNumHeavyAtoms()`. */
  readonly numHeavyAtoms: number;
}

// MinimalLib's get_mol also reads Mol blocks and JSON, which MolFromSmiles never accepts.
const NOT_SMILES = /M {2}END|^\s*\{/;

function withMol<T>(rdkit: MainModule, smiles: string, read: (mol: Mol) => T): T | undefined {
  if (NOT_SMILES.test(smiles)) return undefined;
  const mol = rdkit.get_mol(smiles);
  try {
    return mol && mol.is_valid() ? read(mol) : undefined;
  } finally {
    mol?.delete();
  }
}

interface RdkitJson {
  defaults: { atom: { z: number; impHs: number; chg: number } };
  molecules: { atoms: { z?: number; impHs?: number; chg?: number }[] }[];
}

/** `Chem.MolFromSmiles(smiles)`, or undefined where RDKit cannot parse or sanitize it. */
export async function molFromSmiles(smiles: string): Promise<Molecule | undefined> {
  const rdkit = await loadRdkit();
  return withMol(rdkit, smiles, (mol) => {
    // An empty SMILES is an empty molecule (MinimalLib's get_json throws on it).
    if (mol.get_num_atoms() === 0) return { canonicalSmiles: mol.get_smiles(), atoms: [], fragments: [], numAtoms: 0, numHeavyAtoms: 0 };
    const json = JSON.parse(mol.get_json()) as RdkitJson;
    const defaults = json.defaults.atom;
    const atoms = (json.molecules[0]?.atoms ?? []).map((atom) => ({ z: atom.z ?? defaults.z, hydrogens: atom.impHs ?? defaults.impHs, charge: atom.chg ?? defaults.chg }));
    const { fragsMolAtomMapping } = JSON.parse((mol.get_frags() as { mappings: string }).mappings) as { fragsMolAtomMapping: number[][] };
    return { canonicalSmiles: mol.get_smiles(), atoms, fragments: fragsMolAtomMapping, numAtoms: mol.get_num_atoms(), numHeavyAtoms: mol.get_num_atoms(true) };
  });
}

/** Heavy atoms (atomic number > 1) among the given atom indices. */
export const heavyAtomsOf = (molecule: Molecule, atomIndices: readonly number[]): number => atomIndices.filter((i) => molecule.atoms[i]!.z > 1).length;

/** `CalcMolFormula(mol)`: C, then H, then the other symbols in string order, counts above 1, then the net charge (`+`, `-2`, …). */
export function molFormula(molecule: Molecule): string {
  const counts = new Map<string, number>();
  let hydrogens = 0;
  let charge = 0;
  for (const atom of molecule.atoms) {
    const symbol = ELEMENTS[atom.z] ?? "*";
    counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
    hydrogens += atom.hydrogens;
    charge += atom.charge;
  }
  if (hydrogens > 0) counts.set("H", (counts.get("H") ?? 0) + hydrogens);
  const rank = (symbol: string) => (symbol === "C" ? 0 : symbol === "H" ? 1 : 2);
  const symbols = [...counts.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  let formula = symbols.map((symbol) => (counts.get(symbol)! > 1 ? `${symbol}${counts.get(symbol)}` : symbol)).join("");
  if (charge > 0) formula += charge > 1 ? `+${charge}` : "+";
  else if (charge < 0) formula += charge < -1 ? `-${-charge}` : "-";
  return formula;
}

/** The on bits of the Morgan fingerprint (radius 2, 2048 bits) of a SMILES that parses. */
export async function morganBits(smiles: string): Promise<Set<number> | undefined> {
  const rdkit = await loadRdkit();
  return withMol(rdkit, smiles, (mol) => {
    const bits = mol.get_morgan_fp(JSON.stringify({ radius: 2, nBits: 2048 }));
    const on = new Set<number>();
    for (let i = 0; i < bits.length; i++) if (bits[i] === "1") on.add(i);
    return on;
  });
}

/** `DataStructs.TanimotoSimilarity` of two bit sets (1 when both are empty, as RDKit). */
export function tanimoto(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  let common = 0;
  for (const bit of a) if (b.has(bit)) common++;
  const union = a.size + b.size - common;
  return union === 0 ? 1 : common / union;
}

/** `mol.HasSubstructMatch(query)` for two SMILES that parse (the query read as a molecule, not SMARTS). */
export async function hasSubstructMatch(smiles: string, querySmiles: string): Promise<boolean | undefined> {
  const rdkit = await loadRdkit();
  return withMol(rdkit, smiles, (mol) => withMol(rdkit, querySmiles, (query) => mol.get_substruct_match(query) !== "{}"));
}

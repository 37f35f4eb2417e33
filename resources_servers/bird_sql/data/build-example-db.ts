// Builds the tiny `schools` database our example rows and tests query, in BIRD's layout
// (data/example_dbs/dev_20240627/dev_databases/schools/schools.sqlite, committed). It holds a text column that is
// not UTF-8 (bird_sql reads text with decode(errors="ignore")), ints and floats that compare equal, and NULLs.
// Run: node --import tsx resources_servers/bird_sql/data/build-example-db.ts
import Database from "better-sqlite3";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

export const SCHOOLS_SQL = `
CREATE TABLE schools (id INTEGER PRIMARY KEY, name TEXT NOT NULL, county TEXT, enrollment INTEGER, free_rate REAL);
INSERT INTO schools VALUES
  (1, 'Oak High', 'Alameda', 1200, 0.25),
  (2, 'Pine Elementary', 'Alameda', 300, 0.5),
  (3, 'Cedar Middle', 'Fresno', 640, NULL),
  (4, 'Birch Academy', 'Fresno', 80, 1.0),
  (5, CAST(x'4d61706c65ff' AS TEXT), 'Kern', 410, 0.75);
`;

/** Writes the schools database at `path` (replacing one there). */
export function buildSchoolsDatabase(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true });
  const db = new Database(path);
  try {
    db.exec(SCHOOLS_SQL);
  } finally {
    db.close();
  }
  return path;
}

/** The database file under a bird_sql_dir. */
export const schoolsPath = (birdSqlDir: string) => join(birdSqlDir, "dev_20240627", "dev_databases", "schools", "schools.sqlite");

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(buildSchoolsDatabase(schoolsPath(join(import.meta.dirname, "example_dbs"))));
}

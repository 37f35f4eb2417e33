// Builds the tiny `shop` database our example rows and tests query (data/example_dbs/sqlite/shop.sqlite, committed).
// Its values pin down what the comparison must get right: ints past 2^53, 1 vs 1.0, NULLs, text that reads as a
// number, bytes, non-ASCII text. Run: node --import tsx resources_servers/spider2_lite/data/build-example-db.ts
import Database from "better-sqlite3";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

export const SHOP_SQL = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, balance REAL);
INSERT INTO customers VALUES (1, 'Ada', 'London', 120.5), (2, 'Grace', 'New York', 80.0), (3, 'Linus', 'Helsinki', NULL), (4, 'Zoë', 'Zürich', 0.1);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount REAL, quantity INTEGER, code TEXT, payload BLOB);
INSERT INTO orders VALUES
  (10, 1, 19.99, 1, '007', x'00ff'),
  (11, 1, 5.0, 3, '42', NULL),
  (12, 2, 100.0, 2, 'A-1', x'41'),
  (13, 4, 0.005, 9007199254740993, '1e3', NULL);
`;

/** Writes the shop database at `path` (replacing one there). */
export function buildShopDatabase(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true });
  const db = new Database(path);
  try {
    db.exec(SHOP_SQL);
  } finally {
    db.close();
  }
  return path;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(buildShopDatabase(join(import.meta.dirname, "example_dbs", "sqlite", "shop.sqlite")));
}

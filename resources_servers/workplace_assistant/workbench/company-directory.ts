// The company directory (NeMo Gym's CompanyDirectoryTool): the addresses containing a name, read-only.
import { containsMatch, lower } from "./python.ts";
import type { Table } from "./table.ts";
import { text, workbenchTool, type Kwargs } from "./tool-spec.ts";

export class CompanyDirectoryTool {
  constructor(readonly addresses: Table) {}

  findEmailAddress({ name = "" }: Kwargs): unknown {
    if (name === "") return "Name not provided.";
    // The name is lower-cased before it is used as a (case-insensitive) regular expression, as in Python.
    const pattern = lower(name);
    const matches = this.addresses.rows.map((row) => containsMatch(row.email_address, pattern));
    return this.addresses.rows.filter((_, i) => matches[i]).map((row) => row.email_address);
  }
}

export const companyDirectoryTools = {
  company_directory_find_email_address: workbenchTool<CompanyDirectoryTool>({
    description: "Finds all email addresses containing the given name (case-insensitive search).",
    input: { name: text("Name or partial name to search for in email addresses").optional() },
    python: "CompanyDirectoryTool.find_email_address",
    run: (kit, kw) => kit.findEmailAddress(kw),
  }),
};

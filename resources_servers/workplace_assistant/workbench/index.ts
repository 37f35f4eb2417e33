// A workbench: one session's copy of the six tables behind NeMo Gym's 27 WorkBench tools, and the tools bound to
// it. Creating one is cheap: tables are immutable and shared until a tool call replaces one (copy-on-write).
import { AnalyticsTool, analyticsTools } from "./analytics.ts";
import { CalendarTool, calendarTools } from "./calendar.ts";
import { CompanyDirectoryTool, companyDirectoryTools } from "./company-directory.ts";
import { comparable, type ComparableTable } from "./compare.ts";
import { CustomerRelationshipManagerTool, customerRelationshipManagerTools } from "./customer-relationship-manager.ts";
import { EmailTool, emailTools } from "./email.ts";
import { ProjectManagementTool, projectManagementTools } from "./project-management.ts";
import { KeyError, PyException } from "../../../src/python/exception.ts";
import { pythonStringRepr } from "../../../src/python/repr.ts";
import type { WorkbenchTables } from "./tables-dir.ts";
import type { Table } from "./table.ts";
import type { Kwargs, WorkbenchTool } from "./tool-spec.ts";

export class Workbench {
  readonly companyDirectory: CompanyDirectoryTool;
  readonly email: EmailTool;
  readonly calendar: CalendarTool;
  readonly analytics: AnalyticsTool;
  readonly projectManagement: ProjectManagementTool;
  readonly crm: CustomerRelationshipManagerTool;

  constructor(tables: WorkbenchTables) {
    this.companyDirectory = new CompanyDirectoryTool(tables.directory);
    this.email = new EmailTool(tables.emails);
    this.calendar = new CalendarTool(tables.calendarEvents);
    this.analytics = new AnalyticsTool(tables.analytics);
    this.projectManagement = new ProjectManagementTool(tables.projectTasks);
    this.crm = new CustomerRelationshipManagerTool(tables.crm);
  }

  /**
   * `functions[name](**kwargs)`: a keyword the Python method does not take is its TypeError; Python exceptions
   * raised by the tool come out as {@link PyException}.
   */
  call(name: string, kwargs: Kwargs): unknown {
    const tool = WORKBENCH_TOOLS[name];
    if (!tool) throw new KeyError(pythonStringRepr(name));
    const unexpected = Object.keys(kwargs).find((key) => !Object.hasOwn(tool.input.shape, key));
    if (unexpected !== undefined) throw new PyException("TypeError", `${tool.pythonName}() got an unexpected keyword argument '${unexpected}'`);
    return tool.run(this, kwargs);
  }

  /**
   * What this session changed, for a store shared by replicas: the tables its tool calls replaced (an unchanged table
   * is still the shared original, so it is left out) and the analytics quirk flag. Plain JSON.
   */
  snapshot(base: WorkbenchTables): WorkbenchSnapshot {
    const changed: WorkbenchSnapshot["changed"] = {};
    if (this.email.emails !== base.emails) changed.emails = this.email.emails;
    if (this.calendar.events !== base.calendarEvents) changed.calendarEvents = this.calendar.events;
    // Plots start empty, a new table per workbench.
    if (this.analytics.plots.rows.length > 0) changed.plots = this.analytics.plots;
    if (this.projectManagement.tasks !== base.projectTasks) changed.projectTasks = this.projectManagement.tasks;
    if (this.crm.customers !== base.crm) changed.crm = this.crm.customers;
    return { changed, durationsAreFloats: this.analytics.durationsAreFloats };
  }

  /** The workbench a snapshot describes, on these (shared, unchanged) tables. */
  static restore(base: WorkbenchTables, snapshot: WorkbenchSnapshot): Workbench {
    const workbench = new Workbench(base);
    const { emails, calendarEvents, plots, projectTasks, crm } = snapshot.changed;
    if (emails) workbench.email.emails = emails;
    if (calendarEvents) workbench.calendar.events = calendarEvents;
    if (plots) workbench.analytics.plots = plots;
    if (projectTasks) workbench.projectManagement.tasks = projectTasks;
    if (crm) workbench.crm.customers = crm;
    workbench.analytics.durationsAreFloats = snapshot.durationsAreFloats;
    return workbench;
  }

  /** The tables verify compares, in NeMo Gym's order: calendar, email, plots, tasks, CRM (lower-cased). */
  comparableState(): ComparableTable[] {
    return [this.calendar.events, this.email.emails, this.analytics.plots, this.projectManagement.tasks, this.crm.customers].map(comparable);
  }
}

type ChangeableTable = "emails" | "calendarEvents" | "plots" | "projectTasks" | "crm";

export interface WorkbenchSnapshot {
  changed: Partial<Record<ChangeableTable, Table>>;
  durationsAreFloats: boolean;
}

export interface BoundTool extends Omit<WorkbenchTool<unknown>, "run"> {
  run(workbench: Workbench, kwargs: Kwargs): unknown;
}

function bind<Kit>(tools: Record<string, WorkbenchTool<Kit>>, kit: (workbench: Workbench) => Kit): [string, BoundTool][] {
  return Object.entries(tools).map(([name, tool]) => [name, { ...tool, run: (workbench: Workbench, kwargs: Kwargs) => tool.run(kit(workbench), kwargs) }]);
}

/** The 27 tools, in the order NeMo Gym lists their schemas. */
export const WORKBENCH_TOOLS: Readonly<Record<string, BoundTool>> = Object.freeze(
  Object.fromEntries([
    ...bind(companyDirectoryTools, (w) => w.companyDirectory),
    ...bind(emailTools, (w) => w.email),
    ...bind(calendarTools, (w) => w.calendar),
    ...bind(analyticsTools, (w) => w.analytics),
    ...bind(projectManagementTools, (w) => w.projectManagement),
    ...bind(customerRelationshipManagerTools, (w) => w.crm),
  ]),
);

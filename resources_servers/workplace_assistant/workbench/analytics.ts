// The analytics toolkit (NeMo Gym's AnalyticsTool): per-day counts and averages over the visits table, and plots.
// Only the plots table (`file_path` per created plot) is state verify compares.
import { cellStr, isStr, pyEquals } from "./python.ts";
import { jsonTypeName, jsonTruthy } from "../../../src/python/json-value.ts";
import { PyException } from "../../../src/python/exception.ts";
import { appendRows, records, type Row, type Table } from "./table.ts";
import { text, workbenchTool, type Kwargs } from "./tool-spec.ts";

const PLOT_VALUES = ["total_visits", "session_duration_seconds", "user_engaged", "visits_direct", "visits_referral", "visits_search_engine", "visits_social_media"];
const PLOT_TYPES = ["bar", "line", "scatter", "histogram"];

export const emptyPlots = (): Table => ({ columns: ["file_path"], rows: [], index: [] });

/** `data[data["date_of_visit"] >= bound]`: string comparison; another type cannot be compared with a str. */
function compareDate(date: unknown, bound: unknown, op: ">=" | "<="): boolean {
  if (!isStr(bound)) throw new PyException("TypeError", `'${op}' not supported between instances of 'str' and '${jsonTypeName(bound)}'`);
  if (!isStr(date)) return false;
  return op === ">=" ? date >= bound : date <= bound;
}

/** `df.groupby("date_of_visit")`: the rows of each date, dates in sorted order (missing dates dropped). */
function byDate(rows: readonly Row[]): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const date = row.date_of_visit;
    if (!isStr(date)) continue;
    if (!groups.has(date)) groups.set(date, []);
    groups.get(date)!.push(row);
  }
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `float(text)` as `astype(float)` applies it. */
function toFloat(cell: unknown): number {
  if (cell === null) return Number.NaN;
  if (typeof cell === "number") return cell;
  const text = String(cell).trim();
  const value = /^[+-]?(?:\d+\.?\d*(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?|inf(?:inity)?|nan)$/i.test(text) ? Number(text.replace(/^([+-]?)inf(inity)?$/i, "$1Infinity").replace(/^[+-]?nan$/i, "NaN")) : undefined;
  if (value === undefined) throw new PyException("ValueError", `could not convert string to float: '${cellStr(cell)}'`);
  return value;
}

export class AnalyticsTool {
  /**
   * pandas quirk: averaging over the whole table converts its `session_duration_seconds` column to floats for good.
   * Part of the session's state (a workbench's snapshot carries it).
   */
  durationsAreFloats = false;

  constructor(
    readonly visits: Table,
    public plots: Table = emptyPlots(),
  ) {}

  private inRange(time_min: unknown, time_max: unknown): readonly Row[] {
    let rows = this.visits.rows;
    if (jsonTruthy(time_min)) rows = rows.filter((row) => compareDate(row.date_of_visit, time_min, ">="));
    if (jsonTruthy(time_max)) rows = rows.filter((row) => compareDate(row.date_of_visit, time_max, "<="));
    return rows;
  }

  getVisitorInformationById({ visitor_id = null }: Kwargs): unknown {
    if (!jsonTruthy(visitor_id)) return "Visitor ID not provided.";
    const visits = this.visits.rows.filter((row) => pyEquals(row.visitor_id, visitor_id));
    if (visits.length === 0) return "Visitor not found.";
    const shown = records(visits);
    if (this.durationsAreFloats) for (const visit of shown) visit.session_duration_seconds = toFloat(visit.session_duration_seconds);
    return shown;
  }

  createPlot({ time_min = null, time_max = null, value_to_plot = null, plot_type = null }: Kwargs): string {
    if (!jsonTruthy(time_min)) return "Start date not provided.";
    if (!jsonTruthy(time_max)) return "End date not provided.";
    if (!PLOT_VALUES.some((valid) => pyEquals(valid, value_to_plot))) {
      return "Value to plot must be one of 'total_visits', 'session_duration_seconds', 'user_engaged', 'visits_direct', 'visits_referral', 'visits_search_engine', 'visits_social_media'";
    }
    if (!PLOT_TYPES.some((valid) => pyEquals(valid, plot_type))) return "Plot type must be one of 'bar', 'line', 'scatter', or 'histogram'";
    const filePath = `plots/${cellStr(time_min)}_${cellStr(time_max)}_${value_to_plot}_${plot_type}.png`;
    // `plots.loc[len(plots)] = [file_path]` labels the row with the row count: plots are never deleted, so the
    // labels stay 0..n-1, as a renumbering append gives.
    this.plots = appendRows(this.plots, [{ file_path: filePath }], true);
    return filePath;
  }

  totalVisitsCount({ time_min = null, time_max = null }: Kwargs): Record<string, number> {
    return Object.fromEntries([...byDate(this.inRange(time_min, time_max))].map(([date, rows]) => [date, rows.length]));
  }

  engagedUsersCount({ time_min = null, time_max = null }: Kwargs): Record<string, number> {
    return Object.fromEntries([...byDate(this.inRange(time_min, time_max))].map(([date, rows]) => [date, rows.filter((row) => jsonTruthy(row.user_engaged)).length]));
  }

  trafficSourceCount({ time_min = null, time_max = null, traffic_source = null }: Kwargs): Record<string, number> {
    const groups = byDate(this.inRange(time_min, time_max));
    const count = (rows: Row[]) => (jsonTruthy(traffic_source) ? rows.filter((row) => pyEquals(row.traffic_source, traffic_source)).length : rows.length);
    return Object.fromEntries([...groups].map(([date, rows]) => [date, count(rows)]));
  }

  getAverageSessionDuration({ time_min = null, time_max = null }: Kwargs): Record<string, number> {
    const rows = this.inRange(time_min, time_max);
    const durations = rows.map((row) => toFloat(row.session_duration_seconds));
    if (!jsonTruthy(time_min) && !jsonTruthy(time_max)) this.durationsAreFloats = true;
    const sums = new Map<string, { sum: number; count: number }>();
    rows.forEach((row, i) => {
      const date = row.date_of_visit;
      if (!isStr(date)) return;
      const entry = sums.get(date) ?? { sum: 0, count: 0 };
      if (!Number.isNaN(durations[i]!)) {
        entry.sum += durations[i]!;
        entry.count++;
      }
      sums.set(date, entry);
    });
    return Object.fromEntries([...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([date, { sum, count }]) => [date, count === 0 ? Number.NaN : sum / count]));
  }
}

const range = {
  time_min: text("Start date of the time range. Date format is YYYY-MM-DD").optional(),
  time_max: text("End date of the time range. Date format is YYYY-MM-DD").optional(),
};

export const analyticsTools = {
  analytics_get_visitor_information_by_id: workbenchTool<AnalyticsTool>({
    description: "Returns the analytics data for a given visitor ID.",
    input: { visitor_id: text("ID of the visitor") },
    python: "AnalyticsTool.get_visitor_information_by_id",
    run: (kit, kw) => kit.getVisitorInformationById(kw),
  }),
  analytics_create_plot: workbenchTool<AnalyticsTool>({
    description: "Plots the analytics data for a given time range and value.",
    input: {
      time_min: text("Start date of the time range. Date format is YYYY-MM-DD"),
      time_max: text("End date of the time range. Date format is YYYY-MM-DD"),
      value_to_plot: text(
        "Value to plot. Available values are: 'total_visits', 'session_duration_seconds', 'user_engaged', 'visits_direct', 'visits_referral', 'visits_search_engine', 'visits_social_media'",
      ),
      plot_type: text("Type of plot. Can be 'bar', 'line', 'scatter' or 'histogram'"),
    },
    python: "AnalyticsTool.create_plot",
    writes: true,
    run: (kit, kw) => kit.createPlot(kw),
  }),
  analytics_total_visits_count: workbenchTool<AnalyticsTool>({
    description: "Returns the total number of visits within a specified time range.",
    input: range,
    python: "AnalyticsTool.total_visits_count",
    run: (kit, kw) => kit.totalVisitsCount(kw),
  }),
  analytics_engaged_users_count: workbenchTool<AnalyticsTool>({
    description: "Returns the number of engaged users within a specified time range.",
    input: range,
    python: "AnalyticsTool.engaged_users_count",
    run: (kit, kw) => kit.engagedUsersCount(kw),
  }),
  analytics_traffic_source_count: workbenchTool<AnalyticsTool>({
    description: "Returns the number of visits from a specific traffic source within a specified time range.",
    input: {
      ...range,
      traffic_source: text("Traffic source to filter the visits. Available values are: 'direct', 'referral', 'search engine', 'social media'").optional(),
    },
    python: "AnalyticsTool.traffic_source_count",
    run: (kit, kw) => kit.trafficSourceCount(kw),
  }),
  analytics_get_average_session_duration: workbenchTool<AnalyticsTool>({
    description: "Returns the average session duration within a specified time range.",
    input: range,
    python: "AnalyticsTool.get_average_session_duration",
    run: (kit, kw) => kit.getAverageSessionDuration(kw),
  }),
};

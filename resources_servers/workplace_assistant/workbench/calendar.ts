// The calendar toolkit (NeMo Gym's CalendarTool). Ids are 8 digits; a created event gets the greatest id + 1,
// zero-padded, and (pandas concat without ignore_index) the row label 0. Values are stored as sent, except
// `participant_email`, which is lower-cased.
import { containsMatch, intArg, isDigits, isStr, lower, paginate, pyEquals, pyInt } from "./python.ts";
import { pythonLen } from "../../../src/python/str.ts";
import { jsonTruthy } from "../../../src/python/json-value.ts";
import { PyException } from "../../../src/python/exception.ts";
import { appendRows, columnContains, columnMax, filterRows, records, updateRows, type Table } from "./table.ts";
import { compareTimestamps, pdTimestamp } from "./timestamp.ts";
import { integer, text, workbenchTool, type Kwargs } from "./tool-spec.ts";

const READABLE_FIELDS = ["event_id", "event_name", "participant_email", "event_start", "duration"];
const UPDATABLE_FIELDS = ["event_name", "participant_email", "event_start", "duration"];
const INVALID_ID = "Invalid event ID format. Expected 8-digit ID.";

const isEventId = (value: unknown) => isStr(value) && pythonLen(value) === 8 && isDigits(value);

/** `pd.Timestamp(value)` as a validation: false where pandas raises ValueError (other errors propagate). */
function parsesAsTimestamp(value: unknown): boolean {
  try {
    pdTimestamp(value);
    return true;
  } catch (error) {
    if (error instanceof PyException && error.type === "ValueError") return false;
    throw error;
  }
}

/** The duration rule: a message when `int(value)` fails or is not positive, else undefined. */
function durationProblem(value: unknown): string | undefined {
  let minutes: number;
  try {
    minutes = pyInt(value);
  } catch (error) {
    if (error instanceof PyException && error.type === "ValueError") return "Invalid duration format. Expected a number of minutes.";
    throw error;
  }
  return minutes <= 0 ? "Duration must be a positive number of minutes." : undefined;
}

export class CalendarTool {
  constructor(public events: Table) {}

  getEventInformationById({ event_id = null, field = null }: Kwargs): unknown {
    if (!jsonTruthy(event_id)) return "Event ID not provided.";
    if (!jsonTruthy(field)) return "Field not provided.";
    if (!isEventId(event_id)) return INVALID_ID;
    if (!READABLE_FIELDS.some((valid) => pyEquals(valid, field))) return `Invalid field. Available fields are: ${READABLE_FIELDS.join(", ")}`;
    const event = this.events.rows.find((row) => pyEquals(row.event_id, event_id));
    if (!event) return "Event not found.";
    return Object.hasOwn(event, field as string) ? { [field as string]: event[field as string] } : "Field not found.";
  }

  searchEvents({ query = "", time_min = null, time_max = null, page = 1, page_size = 5 }: Kwargs): unknown {
    const min = jsonTruthy(time_min) ? (parsesAsTimestamp(time_min) ? pdTimestamp(time_min) : undefined) : null;
    if (min === undefined) return "Invalid time_min format. Expected YYYY-MM-DD HH:MM:SS.";
    const max = jsonTruthy(time_max) ? (parsesAsTimestamp(time_max) ? pdTimestamp(time_max) : undefined) : null;
    if (max === undefined) return "Invalid time_max format. Expected YYYY-MM-DD HH:MM:SS.";

    let events = this.events.rows.filter((row) => containsMatch(row.event_name, query) === true || containsMatch(row.participant_email, query) === true);
    const start = (row: (typeof events)[number]) => pdTimestamp(row.event_start ?? Number.NaN);
    if (min !== null) events = events.filter((row) => compareTimestamps(start(row), min, ">="));
    if (max !== null) events = events.filter((row) => compareTimestamps(start(row), max, "<="));
    if (events.length === 0) return "No events found.";

    // Latest first; Python's sort is stable, so events starting together keep their table order.
    const at = (row: (typeof events)[number]) => {
      const timestamp = start(row);
      return timestamp === "NaT" ? Number.NEGATIVE_INFINITY : timestamp.ms;
    };
    events = events.map((row) => ({ row, at: at(row) })).sort((a, b) => b.at - a.at).map(({ row }) => row);
    const pageSize = intArg(page_size);
    const { items, page: current, totalPages } = paginate(events, intArg(page), pageSize);
    return { events: records(items), pagination: { total_events: events.length, page: current, page_size: pageSize, total_pages: totalPages } };
  }

  createEvent({ event_name = null, participant_email = null, event_start = null, duration = null }: Kwargs): string {
    if (!jsonTruthy(event_name)) return "Event name not provided.";
    if (!jsonTruthy(participant_email)) return "Participant email not provided.";
    if (!jsonTruthy(event_start)) return "Event start not provided.";
    if (!jsonTruthy(duration)) return "Event duration not provided.";
    if (!parsesAsTimestamp(event_start)) return "Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS.";
    const problem = durationProblem(duration);
    if (problem) return problem;
    const participant = lower(participant_email);
    const eventId = String(pyInt(columnMax(this.events, "event_id") ?? Number.NaN) + 1).padStart(8, "0");
    this.events = appendRows(this.events, [{ event_id: eventId, event_name, participant_email: participant, event_start, duration }], false);
    return eventId;
  }

  deleteEvent({ event_id = null }: Kwargs): string {
    if (!jsonTruthy(event_id)) return "Event ID not provided.";
    if (!isEventId(event_id)) return INVALID_ID;
    if (!columnContains(this.events, "event_id", event_id)) return "Event not found.";
    this.events = filterRows(this.events, (row) => !pyEquals(row.event_id, event_id));
    return "Event deleted successfully.";
  }

  updateEvent({ event_id = null, field = null, new_value = null }: Kwargs): string {
    if (!jsonTruthy(event_id) || !jsonTruthy(field) || !jsonTruthy(new_value)) return "Event ID, field, or new value not provided.";
    if (!isEventId(event_id)) return INVALID_ID;
    if (!UPDATABLE_FIELDS.some((valid) => pyEquals(valid, field))) return `Invalid field. Available fields are: ${UPDATABLE_FIELDS.join(", ")}`;
    if (field === "event_start" && !parsesAsTimestamp(new_value)) return "Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS.";
    if (field === "duration") {
      const problem = durationProblem(new_value);
      if (problem) return problem;
    }
    if (!columnContains(this.events, "event_id", event_id)) return "Event not found.";
    const value = field === "participant_email" ? lower(new_value) : new_value;
    if (Array.isArray(value) || (value !== null && typeof value === "object")) {
      throw new PyException("ValueError", "Must have equal len keys and value when setting with an iterable");
    }
    this.events = updateRows(this.events, (row) => pyEquals(row.event_id, event_id), field as string, value);
    return "Event updated successfully.";
  }
}

export const calendarTools = {
  calendar_get_event_information_by_id: workbenchTool<CalendarTool>({
    description: "Returns the event for a given ID.",
    input: {
      event_id: text("8-digit ID of the event"),
      field: text("Field to return. Available fields are: 'event_id', 'event_name', 'participant_email', 'event_start', 'duration'"),
    },
    python: "CalendarTool.get_event_information_by_id",
    run: (kit, kw) => kit.getEventInformationById(kw),
  }),
  calendar_search_events: workbenchTool<CalendarTool>({
    description: "Returns the events for a given query with pagination support.",
    input: {
      query: text("Query to search for. Terms will be matched in the event_name and participant_email fields").optional(),
      time_min: text("Lower bound (inclusive) for an event's end time to filter by. Format: YYYY-MM-DD HH:MM:SS").optional(),
      time_max: text("Upper bound (inclusive) for an event's start time to filter by. Format: YYYY-MM-DD HH:MM:SS").optional(),
      page: integer("Page number of results to return").optional(),
      page_size: integer("Number of events per page").optional(),
    },
    python: "CalendarTool.search_events",
    run: (kit, kw) => kit.searchEvents(kw),
  }),
  calendar_create_event: workbenchTool<CalendarTool>({
    description: "Creates a new event.",
    input: {
      event_name: text("Name of the event"),
      participant_email: text("Email of the participant"),
      event_start: text("Start time of the event. Format: YYYY-MM-DD HH:MM:SS"),
      duration: text("Duration of the event in minutes"),
    },
    python: "CalendarTool.create_event",
    writes: true,
    run: (kit, kw) => kit.createEvent(kw),
  }),
  calendar_delete_event: workbenchTool<CalendarTool>({
    description: "Deletes an event.",
    input: { event_id: text("8-digit ID of the event") },
    python: "CalendarTool.delete_event",
    writes: true,
    run: (kit, kw) => kit.deleteEvent(kw),
  }),
  calendar_update_event: workbenchTool<CalendarTool>({
    description: "Updates an event.",
    input: {
      event_id: text("8-digit ID of the event"),
      field: text("Field to update. Available fields are: 'event_name', 'participant_email', 'event_start', 'duration'"),
      new_value: text("New value for the field"),
    },
    python: "CalendarTool.update_event",
    writes: true,
    run: (kit, kw) => kit.updateEvent(kw),
  }),
};

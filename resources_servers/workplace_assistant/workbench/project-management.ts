// The project management toolkit (NeMo Gym's ProjectManagementTool). Assignees must already appear in the task
// table; lists and boards are fixed sets (case-sensitive); a new task gets the greatest id + 1, zero-padded.
import { containsMatch, isStr, lower, pyEquals, pyInt, requireBooleanMask } from "./python.ts";
import { jsonTypeName, jsonTruthy } from "../../../src/python/json-value.ts";
import { PyException } from "../../../src/python/exception.ts";
import { appendRows, columnContains, columnMax, filterRows, records, updateRows, type Row, type Table } from "./table.ts";
import { text, workbenchTool, type Kwargs } from "./tool-spec.ts";
import { lowerColumn } from "./compare.ts";

const LISTS = ["Backlog", "In Progress", "In Review", "Completed"];
const BOARDS = ["Back end", "Front end", "Design"];
const INVALID_LIST = "List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'.";
const INVALID_BOARD = "Board not valid. Please choose from: 'Back end', 'Front end', 'Design'.";
const INVALID_ASSIGNEE = "Assignee email not valid. Please choose from the list of team members.";
// Python's re.match with `$`, which also matches before a final newline.
const EMAIL_PATTERN = /^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}\n?$/;

const oneOf = (options: string[], value: unknown) => options.some((option) => pyEquals(option, value));

export class ProjectManagementTool {
  constructor(public tasks: Table) {}

  /** `value in tasks["assigned_to_email"].str.lower().values`. */
  private isTeamMember(email: string): boolean {
    return lowerColumn(this.tasks, "assigned_to_email").some((cell) => cell === email);
  }

  getTaskInformationById({ task_id = null, field = null }: Kwargs): unknown {
    if (!jsonTruthy(task_id)) return "Task ID not provided.";
    if (!jsonTruthy(field)) return "Field not provided.";
    const task = this.tasks.rows.find((row) => pyEquals(row.task_id, task_id));
    if (!task) return "Task not found.";
    return isStr(field) && Object.hasOwn(task, field) ? { [field]: task[field] } : "Field not found.";
  }

  searchTasks({ task_name = null, assigned_to_email = null, list_name = null, due_date = null, board = null }: Kwargs): unknown {
    if (![task_name, assigned_to_email, list_name, due_date, board].some(jsonTruthy)) return "No search parameters provided.";
    if (jsonTruthy(assigned_to_email) && !EMAIL_PATTERN.test(matchable(assigned_to_email))) return "Invalid email format for assigned_to_email.";
    let tasks: readonly Row[] = this.tasks.rows;
    const contains = (column: string, pattern: unknown) => {
      const mask = requireBooleanMask(tasks.map((row) => containsMatch(row[column], pattern)));
      tasks = tasks.filter((_, i) => mask[i]);
    };
    if (jsonTruthy(task_name)) contains("task_name", task_name);
    if (jsonTruthy(assigned_to_email)) {
      const wanted = lower(assigned_to_email);
      tasks = tasks.filter((row) => isStr(row.assigned_to_email) && row.assigned_to_email.toLowerCase() === wanted);
    }
    if (jsonTruthy(list_name)) contains("list_name", list_name);
    if (jsonTruthy(due_date)) contains("due_date", due_date);
    if (jsonTruthy(board)) contains("board", board);
    return records(tasks);
  }

  createTask({ task_name = null, assigned_to_email = null, list_name = null, due_date = null, board = null }: Kwargs): string {
    if (![task_name, assigned_to_email, list_name, due_date, board].every(jsonTruthy)) return "Missing task details.";
    const assignee = lower(assigned_to_email);
    if (!this.isTeamMember(assignee)) return INVALID_ASSIGNEE;
    if (!oneOf(LISTS, list_name)) return INVALID_LIST;
    if (!oneOf(BOARDS, board)) return INVALID_BOARD;
    const taskId = String(pyInt(columnMax(this.tasks, "task_id") ?? Number.NaN) + 1).padStart(8, "0");
    this.tasks = appendRows(this.tasks, [{ task_id: taskId, task_name, assigned_to_email: assignee, list_name, due_date, board }], true);
    return taskId;
  }

  deleteTask({ task_id = null }: Kwargs): string {
    if (!jsonTruthy(task_id)) return "Task ID not provided.";
    if (!columnContains(this.tasks, "task_id", task_id)) return "Task not found.";
    this.tasks = filterRows(this.tasks, (row) => !pyEquals(row.task_id, task_id));
    return "Task deleted successfully.";
  }

  updateTask({ task_id = null, field = null, new_value = null }: Kwargs): string {
    if (!jsonTruthy(task_id) || !jsonTruthy(field) || !jsonTruthy(new_value)) return "Task ID, field, or new value not provided.";
    const value = field === "assigned_to_email" ? lower(new_value) : new_value;
    if (field === "board" && !oneOf(BOARDS, value)) return INVALID_BOARD;
    if (field === "list_name" && !oneOf(LISTS, value)) return INVALID_LIST;
    if (field === "assigned_to_email" && !this.isTeamMember(value as string)) return INVALID_ASSIGNEE;
    if (!columnContains(this.tasks, "task_id", task_id)) return "Task not found.";
    if (!isStr(field) || !this.tasks.columns.includes(field)) return "Field not valid.";
    this.tasks = updateRows(this.tasks, (row) => pyEquals(row.task_id, task_id), field, value);
    return "Task updated successfully.";
  }
}

/** `re.match` takes only a str. */
function matchable(value: unknown): string {
  if (!isStr(value)) throw new PyException("TypeError", `expected string or bytes-like object, got '${jsonTypeName(value)}'`);
  return value;
}

export const projectManagementTools = {
  project_management_get_task_information_by_id: workbenchTool<ProjectManagementTool>({
    description: "Returns the task information for a given ID.",
    input: {
      task_id: text("8-digit ID of the task"),
      field: text("Field to return. Available fields are: 'task_id', 'task_name', 'assigned_to_email', 'list_name', 'due_date', 'board'"),
    },
    python: "ProjectManagementTool.get_task_information_by_id",
    run: (kit, kw) => kit.getTaskInformationById(kw),
  }),
  project_management_search_tasks: workbenchTool<ProjectManagementTool>({
    description: "Searches for tasks based on the given parameters.",
    input: {
      task_name: text("Name of the task").optional(),
      assigned_to_email: text("Email address of the person assigned to the task").optional(),
      list_name: text("Name of the list the task belongs to").optional(),
      due_date: text("Due date of the task in YYYY-MM-DD format").optional(),
      board: text("Name of the board the task belongs to").optional(),
    },
    python: "ProjectManagementTool.search_tasks",
    run: (kit, kw) => kit.searchTasks(kw),
  }),
  project_management_create_task: workbenchTool<ProjectManagementTool>({
    description: "Creates a new task.",
    input: {
      task_name: text("Name of the task"),
      assigned_to_email: text("Email address of the person assigned to the task"),
      list_name: text("Name of the list the task belongs to. One of: 'Backlog', 'In Progress', 'In Review', 'Completed'"),
      due_date: text("Due date of the task in YYYY-MM-DD format"),
      board: text("Name of the board the task belongs to. One of: 'Back end', 'Front end', 'Design'"),
    },
    python: "ProjectManagementTool.create_task",
    writes: true,
    run: (kit, kw) => kit.createTask(kw),
  }),
  project_management_delete_task: workbenchTool<ProjectManagementTool>({
    description: "Deletes a task by ID.",
    input: { task_id: text("8-digit ID of the task") },
    python: "ProjectManagementTool.delete_task",
    writes: true,
    run: (kit, kw) => kit.deleteTask(kw),
  }),
  project_management_update_task: workbenchTool<ProjectManagementTool>({
    description: "Updates a task by ID.",
    input: {
      task_id: text("8-digit ID of the task"),
      field: text("Field to update. Available fields are: 'task_name', 'assigned_to_email', 'list_name', 'due_date', 'board'"),
      new_value: text("New value for the field"),
    },
    python: "ProjectManagementTool.update_task",
    writes: true,
    run: (kit, kw) => kit.updateTask(kw),
  }),
};

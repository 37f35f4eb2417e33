// The email toolkit (NeMo Gym's EmailTool): read, search, send, delete, forward and reply. Sent mail is appended
// as an `outbox` row dated "now" (2023-11-30 23:59:00) with an id one above the greatest, unpadded.
import { cellStr, guarded, intArg, isStr, lower, paginate, pyEquals, pyIn, pyInt } from "./python.ts";
import { splitWhitespace } from "../../../src/python/str.ts";
import { jsonTruthy } from "../../../src/python/json-value.ts";
import { appendRows, columnContains, columnMax, filterRows, records, type Table } from "./table.ts";
import { pdTimestamp, timestampDate } from "./timestamp.ts";
import { integer, text, workbenchTool, type Kwargs } from "./tool-spec.ts";

export const NOW = "2023-11-30 23:59:00";

export class EmailTool {
  constructor(public emails: Table) {}

  private find(emailId: unknown) {
    return this.emails.rows.find((row) => pyEquals(row.email_id, emailId));
  }

  getEmailInformationById({ email_id = null, field = null }: Kwargs): unknown {
    if (!jsonTruthy(email_id)) return "Email ID not provided.";
    if (!jsonTruthy(field)) return "Field not provided.";
    const email = this.find(email_id);
    if (!email) return "Email not found.";
    if (isStr(field) && Object.hasOwn(email, field)) return { [field]: email[field] };
    return `Field '${cellStr(field)}' not found. Available fields: ${this.emails.columns.join(", ")}`;
  }

  searchEmails({ query = "", date_min = null, date_max = null, page = 1, page_size = 5 }: Kwargs): unknown {
    return guarded("Error searching emails", () => {
      const words = splitWhitespace(lower(query));
      const matching = this.emails.rows.filter((row) => {
        const combined = `${cellStr(row.subject)} ${cellStr(row.body)} ${cellStr(row["sender/recipient"])}`.toLowerCase();
        return words.every((word) => combined.includes(word));
      });
      // Newest first (NaT last); mails sent at the same instant keep their table order.
      const sentAt = (cell: unknown) => {
        const timestamp = pdTimestamp(cell ?? Number.NaN);
        return timestamp === "NaT" ? Number.NEGATIVE_INFINITY : timestamp.ms;
      };
      let emails = matching.map((row) => ({ row, at: sentAt(row.sent_datetime) })).sort((a, b) => b.at - a.at).map(({ row }) => row);
      if (jsonTruthy(date_min)) {
        const min = timestampDate(date_min);
        emails = emails.filter((email) => timestampDate(email.sent_datetime ?? Number.NaN) >= min);
      }
      if (jsonTruthy(date_max)) {
        const max = timestampDate(date_max);
        emails = emails.filter((email) => timestampDate(email.sent_datetime ?? Number.NaN) <= max);
      }
      const pageSize = intArg(page_size);
      const { items, page: current, totalPages } = paginate(emails, intArg(page), pageSize);
      if (emails.length === 0) return "No emails found.";
      return { emails: records(items), pagination: { total_emails: emails.length, page: current, page_size: pageSize, total_pages: totalPages } };
    });
  }

  sendEmail({ recipient = null, subject = null, body = null }: Kwargs): string {
    if (!jsonTruthy(recipient) || !jsonTruthy(subject) || !jsonTruthy(body)) return "Recipient, subject, or body not provided.";
    if (!pyIn("@", recipient) || !pyIn(".", recipient)) return "Invalid recipient email address.";
    return guarded("Error sending email", () => {
      const to = lower(recipient);
      const emailId = this.emails.rows.length === 0 ? "1" : String(pyInt(columnMax(this.emails, "email_id") ?? Number.NaN) + 1);
      this.emails = appendRows(this.emails, [{ email_id: emailId, "inbox/outbox": "outbox", "sender/recipient": to, subject, sent_datetime: NOW, body }], true);
      return "Email sent successfully.";
    });
  }

  deleteEmail({ email_id = null }: Kwargs): string {
    if (!jsonTruthy(email_id)) return "Email ID not provided.";
    return guarded("Error deleting email", () => {
      if (!columnContains(this.emails, "email_id", email_id)) return "Email not found.";
      this.emails = filterRows(this.emails, (row) => !pyEquals(row.email_id, email_id));
      return "Email deleted successfully.";
    });
  }

  forwardEmail({ email_id = null, recipient = null }: Kwargs): string {
    if (!jsonTruthy(email_id) || !jsonTruthy(recipient)) return "Email ID or recipient not provided.";
    if (!pyIn("@", recipient) || !pyIn(".", recipient)) return "Invalid recipient email address.";
    return guarded("Error forwarding email", () => {
      if (!columnContains(this.emails, "email_id", email_id)) return "Email not found.";
      const to = lower(recipient);
      const email = this.find(email_id)!;
      const result = this.sendEmail({ recipient: to, subject: `FW: ${cellStr(email.subject)}`, body: email.body });
      return result.includes("Error") || result.includes("Invalid") ? result : "Email forwarded successfully.";
    });
  }

  replyEmail({ email_id = null, body = null }: Kwargs): string {
    if (!jsonTruthy(email_id) || !jsonTruthy(body)) return "Email ID or body not provided.";
    return guarded("Error replying to email", () => {
      if (!columnContains(this.emails, "email_id", email_id)) return "Email not found.";
      const email = this.find(email_id)!;
      // An inbox mail is answered to its sender, an outbox one to its recipient: the same column either way.
      const result = this.sendEmail({ recipient: email["sender/recipient"] ?? Number.NaN, subject: `RE: ${cellStr(email.subject)}`, body });
      return result.includes("Error") || result.includes("Invalid") ? result : "Email replied successfully.";
    });
  }
}

export const emailTools = {
  email_get_email_information_by_id: workbenchTool<EmailTool>({
    description: "Retrieves specific details of an email by its ID.",
    input: {
      email_id: text("Unique ID of the email"),
      field: text("Specific field to return. Available fields: 'email_id', 'inbox/outbox', 'sender/recipient', 'subject', 'sent_datetime', 'body'"),
    },
    python: "EmailTool.get_email_information_by_id",
    run: (kit, kw) => kit.getEmailInformationById(kw),
  }),
  email_search_emails: workbenchTool<EmailTool>({
    description:
      "Searches for emails matching the given query across subject, body, or sender fields. The function matches an email if all words in the query appear in any of these fields.",
    input: {
      query: text("Search query, matching terms in subject, body, or sender/recipient fields").optional(),
      date_min: text("Lower date limit for the email's sent date (inclusive). Format: YYYY-MM-DD").optional(),
      date_max: text("Upper date limit for the email's sent date (inclusive). Format: YYYY-MM-DD").optional(),
      page: integer("Page number of results to return").optional(),
      page_size: integer("Number of emails per page").optional(),
    },
    python: "EmailTool.search_emails",
    run: (kit, kw) => kit.searchEmails(kw),
  }),
  email_send_email: workbenchTool<EmailTool>({
    description: "Sends an email to the specified recipient.",
    input: { recipient: text("Email address of the recipient"), subject: text("Subject line of the email"), body: text("Body content of the email") },
    python: "EmailTool.send_email",
    writes: true,
    run: (kit, kw) => kit.sendEmail(kw),
  }),
  email_delete_email: workbenchTool<EmailTool>({
    description: "Deletes an email by its ID.",
    input: { email_id: text("Unique ID of the email to be deleted") },
    python: "EmailTool.delete_email",
    writes: true,
    run: (kit, kw) => kit.deleteEmail(kw),
  }),
  email_forward_email: workbenchTool<EmailTool>({
    description: "Forwards an email to the specified recipient.",
    input: { email_id: text("Unique ID of the email to be forwarded"), recipient: text("Email address of the recipient") },
    python: "EmailTool.forward_email",
    writes: true,
    run: (kit, kw) => kit.forwardEmail(kw),
  }),
  email_reply_email: workbenchTool<EmailTool>({
    description: "Replies to an email by its ID.",
    input: { email_id: text("Unique ID of the email to be replied"), body: text("Body content of the email") },
    python: "EmailTool.reply_email",
    writes: true,
    run: (kit, kw) => kit.replyEmail(kw),
  }),
};

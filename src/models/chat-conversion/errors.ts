// A request that cannot be expressed in the other dialect. Callers turn it into a 400: the input is at fault,
// not the server, and the message names the item and field to fix.
export class ChatConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChatConversionError";
  }
}

// A user's mistake in a request to the view server (an unknown run, line or playground session, a server the head
// server does not list): answered with its status and a message naming what was wrong.
export class ViewRequestError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = "ViewRequestError";
  }
}

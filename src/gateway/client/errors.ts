// The ways one thin-client run can fail. Each message is safe to print: none carries a gateway body or a token.

/** The gateway could not be reached, or answered with an error status or a body that is not JSON. */
export class GatewayRequestError extends Error {
  constructor(
    message: string,
    readonly operation: string,
    /** The HTTP status, or null for a transport failure or an unreadable body. */
    readonly status: number | null,
  ) {
    super(message);
    this.name = "GatewayRequestError";
  }
}

/** A request given up because its caller's signal fired (the managed session is stopping). */
export class RequestCancelled extends Error {
  constructor(readonly operation: string) {
    super(`Gateway ${operation} request cancelled`);
    this.name = "RequestCancelled";
  }
}

/** The managed session was stopped, or the remote trial ended aborted. */
export class TrialCancelled extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TrialCancelled";
  }
}

/** The remote trial ended `failed`. */
export class TrialFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TrialFailed";
  }
}

/** The session input or the environment the client was launched with is unusable. */
export class ClientInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClientInputError";
  }
}

/** A terminal result that must not reach Relax (not a success, or no reward). */
export class TrialOutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TrialOutputError";
  }
}

// A server's config the user has to fix: the CLI prints it as one line and exits 2.
import { UserError } from "../config/errors.ts";

export class ServerConfigError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "ServerConfigError";
  }
}

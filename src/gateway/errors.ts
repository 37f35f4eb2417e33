/** Invalid Gateway configuration, or a trial that does not fit it (the trial API answers 400). */
export class GatewayConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GatewayConfigError";
  }
}

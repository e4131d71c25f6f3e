import { closeSync, openSync, writeSync } from "node:fs";

/** Room left on the manifest line so the end time can be filled in place. */
const MANIFEST_PADDING = 160;

/**
 * `rows.jsonl`: the manifest line first, then one line per sample, appended as each finishes
 * (a run that dies keeps every finished row). At the end the manifest line is rewritten in place
 * with the fields only known then, inside the room reserved for them.
 */
export class RowWriter {
  private readonly fd: number;
  private readonly manifestLength: number;

  constructor(
    readonly path: string,
    private manifest: Record<string, unknown>,
  ) {
    this.fd = openSync(path, "w");
    const line = `${JSON.stringify({ manifest })}${" ".repeat(MANIFEST_PADDING)}\n`;
    this.manifestLength = Buffer.byteLength(line);
    writeSync(this.fd, line);
  }

  append(row: object): void {
    writeSync(this.fd, `${JSON.stringify(row)}\n`);
  }

  /** Adds fields to the manifest (e.g. end time); skipped if they would not fit. */
  close(extra: Record<string, unknown>): void {
    this.manifest = { ...this.manifest, ...extra };
    const body = JSON.stringify({ manifest: this.manifest });
    const room = this.manifestLength - 1 - Buffer.byteLength(body);
    if (room >= 0) writeSync(this.fd, `${body}${" ".repeat(room)}\n`, 0);
    closeSync(this.fd);
  }
}

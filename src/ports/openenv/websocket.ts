// The server half of RFC 6455, as much as a JSON request/answer protocol needs: the upgrade handshake, text frames
// (fragmented or not) in, text frames out, ping → pong, close. No extensions (permessage-deflate is declined by not
// answering it), no binary messages (refused with close code 1003). The project has no WebSocket server library;
// the client side uses undici's WebSocket.
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

export interface ServerWebSocket {
  send(text: string): void;
  close(code?: number, reason?: string): void;
  readonly closed: boolean;
}

export interface WebSocketHandlers {
  onMessage(text: string): void;
  onClose(): void;
}

export interface AcceptOptions {
  /** A message (all its fragments) larger than this closes the connection with 1009. */
  maxMessageBytes?: number;
}

/** Answers the upgrade request (400 when it is no WebSocket handshake) and frames the socket; `handlers` receive messages. */
export function acceptWebSocket(request: IncomingMessage, socket: Duplex, head: Buffer, connect: (ws: ServerWebSocket) => WebSocketHandlers, options: AcceptOptions = {}): void {
  const key = request.headers["sec-websocket-key"];
  const upgrade = String(request.headers.upgrade ?? "").toLowerCase();
  if (typeof key !== "string" || upgrade !== "websocket" || request.headers["sec-websocket-version"] !== "13") {
    socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    return;
  }
  const accept = createHash("sha1").update(key + GUID).digest("base64");
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  const maxMessageBytes = options.maxMessageBytes ?? 16 * 1024 * 1024;

  let closed = false;
  let buffer: Buffer = head.length > 0 ? Buffer.from(head) : Buffer.alloc(0);
  let fragments: Buffer[] = [];
  let fragmentBytes = 0;
  let fragmentOpcode = 0;

  const writeFrame = (opcode: number, payload: Buffer) => {
    if (socket.destroyed) return;
    const length = payload.length;
    let header: Buffer;
    if (length < 126) header = Buffer.from([0x80 | opcode, length]);
    else if (length < 65536) {
      header = Buffer.alloc(4);
      header[0] = 0x80 | opcode;
      header[1] = 126;
      header.writeUInt16BE(length, 2);
    } else {
      header = Buffer.alloc(10);
      header[0] = 0x80 | opcode;
      header[1] = 127;
      header.writeBigUInt64BE(BigInt(length), 2);
    }
    socket.write(Buffer.concat([header, payload]));
  };

  const ws: ServerWebSocket = {
    send(text) {
      if (!closed) writeFrame(0x1, Buffer.from(text, "utf8"));
    },
    close(code = 1000, reason = "") {
      if (closed) return;
      closed = true;
      const body = Buffer.alloc(2 + Buffer.byteLength(reason));
      body.writeUInt16BE(code, 0);
      body.write(reason, 2);
      writeFrame(0x8, body);
      socket.end();
      handlers.onClose();
    },
    get closed() {
      return closed;
    },
  };
  const handlers = connect(ws);

  const fail = (code: number, reason: string) => ws.close(code, reason);

  const parse = () => {
    while (!closed) {
      if (buffer.length < 2) return;
      const first = buffer[0]!;
      const second = buffer[1]!;
      const fin = (first & 0x80) !== 0;
      const opcode = first & 0x0f;
      const masked = (second & 0x80) !== 0;
      let length = second & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        const big = buffer.readBigUInt64BE(2);
        if (big > BigInt(maxMessageBytes)) return fail(1009, "message too big");
        length = Number(big);
        offset = 10;
      }
      if ((first & 0x70) !== 0) return fail(1002, "reserved bits set");
      if (!masked) return fail(1002, "client frames must be masked");
      if (length > maxMessageBytes) return fail(1009, "message too big");
      if (buffer.length < offset + 4 + length) return;
      const mask = buffer.subarray(offset, offset + 4);
      const payload = Buffer.from(buffer.subarray(offset + 4, offset + 4 + length));
      for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!;
      buffer = buffer.subarray(offset + 4 + length);

      if (opcode === 0x8) {
        // Echo the peer's close code, then end.
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1000;
        return ws.close(code === 1005 || code < 1000 || code >= 5000 ? 1000 : code);
      }
      if (opcode === 0x9) {
        writeFrame(0xa, payload);
        continue;
      }
      if (opcode === 0xa) continue;
      if (opcode === 0x2 || (opcode === 0x0 && fragmentOpcode === 0x2)) return fail(1003, "binary messages are not accepted");
      if (opcode === 0x1 || opcode === 0x0) {
        if (opcode === 0x1) {
          if (fragments.length > 0) return fail(1002, "a new message began before the last one ended");
          fragmentOpcode = 0x1;
        } else if (fragments.length === 0) return fail(1002, "continuation without a message");
        fragments.push(payload);
        fragmentBytes += payload.length;
        if (fragmentBytes > maxMessageBytes) return fail(1009, "message too big");
        if (fin) {
          const text = Buffer.concat(fragments).toString("utf8");
          fragments = [];
          fragmentBytes = 0;
          fragmentOpcode = 0;
          handlers.onMessage(text);
        }
        continue;
      }
      return fail(1002, `unknown opcode ${opcode}`);
    }
  };

  socket.on("data", (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    parse();
  });
  const gone = () => {
    if (closed) return;
    closed = true;
    handlers.onClose();
  };
  socket.on("close", gone);
  socket.on("error", gone);
  if (buffer.length > 0) parse();
}

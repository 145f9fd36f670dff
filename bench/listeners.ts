import http from "node:http";

/**
 * The outside world of the events benchmark, in a process of its own as it would be: a
 * webhook receiver that acknowledges every delivery at once, and a live stream held open
 * as a dashboard's would be. POST /stream {url, token} opens the stream (closing any
 * other); DELETE /stream closes it; GET / answers {"delivered", "streamed"} so far.
 */
let delivered = 0;
let connections = 0;
let streamed = 0;
let stream: http.ClientRequest | undefined;

function openStream(url: string, token: string): void {
  stream?.destroy();
  stream = http.get(url, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } }, (response) => {
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => { streamed += chunk.split("event: record.").length - 1; });
    response.on("error", () => undefined);
  });
  stream.on("error", () => undefined);
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    if (request.url === "/stream" && request.method === "POST") {
      const { url, token } = JSON.parse(Buffer.concat(chunks).toString()) as { url: string; token: string };
      openStream(url, token);
      response.writeHead(204).end();
    } else if (request.url === "/stream" && request.method === "DELETE") {
      stream?.destroy();
      stream = undefined;
      response.writeHead(204).end();
    } else if (request.method === "GET") {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ delivered, streamed, connections }));
    } else {
      delivered += 1;
      response.writeHead(200).end();
    }
  });
});
server.on("connection", () => { connections += 1; });
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`Bloc Data Service listening on http://127.0.0.1:${port}\n`);
});

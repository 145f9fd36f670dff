import http from "node:http";

/**
 * A webhook receiver for the benchmark, in a process of its own as a real one would be:
 * it acknowledges every delivery at once and counts them. GET / answers the count.
 */
let received = 0;
const server = http.createServer((request, response) => {
  if (request.method === "GET") { response.end(String(received)); return; }
  request.resume();
  request.on("end", () => {
    received += 1;
    response.writeHead(200).end();
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`Bloc Data Service listening on http://127.0.0.1:${port}\n`);
});

/**
 * A small web site on loopback for the browser tests: links, a form, a long page, dialogs,
 * console errors, images, redirects, a download and cookies.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface TestSite {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** Paths requested so far, in order. */
  hits: string[];
  close(): Promise<void>;
}

// A 1x1 transparent PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64",
);

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

function route(req: IncomingMessage, res: ServerResponse, port: number) {
  const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
  const html = (title: string, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", ...headers });
    res.end(page(title, body));
  };
  switch (url.pathname) {
    case "/":
      return html(
        "Home",
        `<nav><a href="/articles">Articles</a> <a href="/form">Form</a> <a href="/long">Long read</a></nav>
         <h1>Welcome home</h1><p>A page for browser tests.</p>
         <img src="/img/cat.png" alt="A sleeping cat" width="40" height="30">
         <img src="/img/dog.png" alt="A dog">`,
      );
    case "/articles":
      return html(
        "Articles",
        `<h1>All articles</h1><ul><li>First article</li><li>Second article</li></ul><a href="/">Back home</a>`,
      );
    case "/form":
      return html(
        "Form",
        `<h1>Sign up</h1><form action="/result" method="get">
           <label>Name <input name="name"></label>
           <label>Colour <select name="colour"><option>Red</option><option>Green</option><option>Blue</option></select></label>
           <button type="submit">Send</button></form>`,
      );
    case "/result":
      return html(
        "Result",
        `<h1>Hello ${(url.searchParams.get("name") ?? "").replace(/[<&]/g, "")}</h1><p>Colour: ${(url.searchParams.get("colour") ?? "").replace(/[<&]/g, "")}</p>`,
      );
    case "/long": {
      const paras = Array.from(
        { length: 150 },
        (_, i) => `<p>Paragraph number ${i + 1} of a long read.</p>`,
      ).join("");
      return html("Long read", `<h1>Long read</h1>${paras}<p>Bottom marker</p>`);
    }
    case "/dialogs":
      return html(
        "Dialogs",
        `<h1>Dialogs</h1><p id="out">nothing yet</p>
         <button onclick="alert('Careful now'); document.getElementById('out').textContent = 'alert closed'">Warn me</button>
         <button onclick="document.getElementById('out').textContent = confirm('Really?') ? 'confirmed' : 'declined'">Ask me</button>
         <button onclick="document.getElementById('out').textContent = 'name: ' + prompt('Your name?', 'nobody')">Prompt me</button>`,
      );
    case "/errors":
      return html(
        "Errors",
        `<h1>Noisy page</h1><script>
           console.log("page ready");
           console.error("bad thing happened");
           setTimeout(() => { throw new Error("kaboom from a timer"); }, 0);
         </script>`,
      );
    case "/img/cat.png":
    case "/img/dog.png":
      res.writeHead(200, { "content-type": "image/png" });
      return void res.end(PNG);
    case "/redirect-private":
      res.writeHead(302, { location: `http://127.0.0.1:${port}/secret` });
      return void res.end();
    case "/redirect-chain":
      res.writeHead(302, { location: "/articles" });
      return void res.end();
    case "/secret":
      return html("Secret", "<h1>TOP SECRET</h1>");
    case "/popup":
      return html("Popup", `<h1>Popup</h1><a href="/articles" target="_blank">Open articles</a>`);
    case "/download":
      return html("Download", `<h1>Files</h1><a href="/file.csv">Get the data</a>`);
    case "/file.csv":
      res.writeHead(200, {
        "content-type": "text/csv",
        "content-disposition": 'attachment; filename="data.csv"',
      });
      return void res.end("a,b\n1,2\n");
    case "/cookie/set": {
      const flavour = (url.searchParams.get("flavour") ?? "oatmeal").replace(/\W/g, "");
      return html("Cookie set", `<h1>Cookie set</h1>`, { "set-cookie": `flavour=${flavour}; Path=/` });
    }
    case "/leaky":
      return html(
        "Leaky",
        `<h1>Leaky</h1><a href="http://127.0.0.1:${port}/secret">Internal link</a>
         <iframe src="http://127.0.0.1:${port}/secret" title="internal"></iframe>`,
      );
    case "/cookie/show":
      return html("Cookie", `<h1>Cookie: ${(req.headers.cookie ?? "none").replace(/[<&]/g, "")}</h1>`);
    case "/iframe":
      return html("Frames", `<h1>Outer</h1><iframe src="/form" title="inner form"></iframe>`);
    default:
      res.writeHead(404, { "content-type": "text/html" });
      res.end(page("Not found", "<h1>Not found</h1>"));
  }
}

/** Starts the site on 127.0.0.1 (random port). */
export async function startTestSite(): Promise<TestSite> {
  const hits: string[] = [];
  let port = 0;
  const server = createServer((req, res) => {
    hits.push(req.url ?? "/");
    route(req, res, port);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

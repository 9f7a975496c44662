/**
 * The corpus of bench/browser: JavaScript-rendered fixture pages and a few static controls, each
 * with the sentences that must come back. Generated here, served by `FixtureServer.ts` on
 * loopback; nothing is downloaded and no framework is used (the "React-like" and "Vue-like" roots
 * are hand-written renderers of a few lines).
 *
 * A page's sentences live only where a browser has to run the page's code to show them: inside
 * scripts, JSON answers, `<template>`s or shadow roots, never as visible text of the served HTML.
 * `beyond` lists what only scrolling loads (the next batch of an infinite feed): reported apart,
 * since neither engine scrolls unless asked to.
 */

export interface Route {
  readonly body: string | Uint8Array
  readonly contentType: string
  /** Milliseconds before the answer (a slow API). */
  readonly delayMs?: number
}

export interface Page {
  readonly name: string
  /** What kind of page it is, for the report. */
  readonly kind: string
  /** False for the static controls, which must keep working through the fetch engine. */
  readonly js: boolean
  /** The path scraped, hash included where the page routes on it. */
  readonly path: string
  /** Routes this page serves (its own HTML at least), by path without query. */
  readonly routes: Readonly<Record<string, Route>>
  /** Sentences that must appear in the page's content. */
  readonly sentences: ReadonlyArray<string>
  /** Sentences only scrolling loads (not counted in the share). */
  readonly beyond: ReadonlyArray<string>
}

const subjects = ["The amber falcon", "A patient cartographer", "The northern ferry", "Our oldest lighthouse", "A quiet violinist", "The copper kettle", "A tired glacier", "The village baker", "An honest weather vane", "The midnight librarian", "A careful beekeeper", "The crooked orchard"]
const verbs = ["counted", "painted", "carried", "measured", "remembered", "repaired", "collected", "described", "followed", "gathered"]
const objects = ["seventeen silver bridges", "the tides of early spring", "forty wooden lanterns", "a map of the eastern marsh", "nine forgotten harbours", "the songs of the valley", "every chimney in the square", "a basket of winter pears", "the slow clocks of the tower", "three hundred paper boats"]
const endings = ["before the market opened", "while the river froze", "during the long harvest", "after the storm had passed", "under a pale green sky", "without telling anyone", "for the children of the coast", "as the bells rang twice"]

/** Sentence `k` of page `seed`: distinct across the corpus, letters and spaces only (no markdown escaping to undo). */
const sentence = (seed: number, k: number): string => {
  const n = seed * 7 + k
  return `${subjects[n % subjects.length]} ${verbs[(n * 3 + seed) % verbs.length]} ${objects[(n * 5 + k) % objects.length]} ${endings[(n + seed * 3) % endings.length]} in chapter ${seed * 100 + k}.`
}
const sentences = (seed: number, count: number, from = 0): Array<string> =>
  Array.from({ length: count }, (_, k) => sentence(seed, from + k))

const html = (title: string, body: string, head = ""): string =>
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head>\n<body>\n${body}\n</body></html>\n`
const htmlRoute = (text: string): Route => ({ body: text, contentType: "text/html; charset=utf-8" })
const jsonRoute = (value: unknown, delayMs = 0): Route => ({ body: JSON.stringify(value), contentType: "application/json", delayMs })
const jsRoute = (text: string, delayMs = 0): Route => ({ body: text, contentType: "text/javascript", delayMs })
const lit = (value: unknown): string => JSON.stringify(value).replace(/</g, "\\u003c")

/** A 1x1 PNG for the image pages. */
const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64")
const pngRoute: Route = { body: new Uint8Array(png), contentType: "image/png" }

/** A short static header and footer, as most script-rendered sites have around their app. */
const chrome = (inner: string) =>
  `<header><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a></header>\n${inner}\n<footer>Fixture site</footer>`

/** Static text around an empty content slot: more than an empty shell (250 characters), less than a full page. */
const longChrome = (inner: string) =>
  `<header><nav><a href="/">Home</a> <a href="/products">Products and pricing for every team</a> <a href="/docs">Documentation and guides</a> <a href="/blog">Engineering blog</a> <a href="/careers">Careers at the fixture company</a> <a href="/contact">Contact our sales department</a></nav></header>
<aside><p>Subscribe to our newsletter for monthly product news, release notes and invitations to community events near you.</p></aside>
${inner}
<footer><p>Copyright the fixture company. All rights reserved. Terms of service, privacy policy, cookie settings, accessibility statement, security disclosures and a sitemap.</p></footer>`

const paragraphsJs = (target: string, lines: ReadonlyArray<string>) =>
  `for (const line of ${lit(lines)}) { const p = document.createElement("p"); p.textContent = line; ${target}.appendChild(p) }`

type Make = (seed: number, name: string) => Omit<Page, "name">

const page = (seed: number, name: string, make: Make): Page => ({ name, ...make(seed, name) })

const js: Array<[string, Make]> = [
  ["inline-inject", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "text injected by an inline script after load", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Injected", chrome(`<main id="main"><h1>Field notes</h1></main>\n<script>window.addEventListener("load", () => { const main = document.getElementById("main"); ${paragraphsJs("main", s)} })</script>`)))
    } }
  }],
  ["react-like-root", (seed, name) => {
    const s = sentences(seed, 4)
    const app = `const h = (tag, props, ...children) => { const el = document.createElement(tag); Object.assign(el, props || {}); for (const c of children.flat()) el.append(c); return el }
const App = ({ items }) => h("article", null, h("h1", null, "Dispatches"), items.map((t) => h("p", { className: "item" }, t)))
document.getElementById("root").append(App({ items: ${lit(s)} }))`
    return { kind: "React-like SPA: empty #root filled by a createElement renderer", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("React-like", `<div id="root"></div>\n<script src="/js/${name}.js" defer></script>`)),
      [`/js/${name}.js`]: jsRoute(app)
    } }
  }],
  ["vue-like-app", (seed, name) => {
    const s = sentences(seed, 3)
    const tpl = `<section><h1>{{ title }}</h1><p v-for="line">{{ line }}</p></section>`
    const app = `const data = { title: "Almanac", lines: ${lit(s)} }
const tpl = document.getElementById("tpl").textContent
const root = document.getElementById("app")
const holder = document.createElement("div"); holder.innerHTML = tpl
const para = holder.querySelector("[v-for]"); const parent = para.parentNode; para.remove()
holder.querySelector("h1").textContent = data.title
for (const line of data.lines) { const p = para.cloneNode(); p.removeAttribute("v-for"); p.textContent = line; parent.append(p) }
root.replaceChildren(...holder.childNodes)`
    return { kind: "Vue-like SPA: #app mounted from an x-template", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Vue-like", `<div id="app"></div>\n<script type="text/x-template" id="tpl">${tpl}</script>\n<script>${app}</script>`))
    } }
  }],
  ["next-like-data", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "Next-like: #__next rendered from a JSON data script", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Next-like", `<div id="__next"></div>\n<script id="__NEXT_DATA__" type="application/json">${lit({ props: { pageProps: { title: "Ledger", body: s } } })}</script>\n<script>const data = JSON.parse(document.getElementById("__NEXT_DATA__").textContent).props.pageProps; const root = document.getElementById("__next"); const h = document.createElement("h1"); h.textContent = data.title; root.append(h); for (const t of data.body) { const p = document.createElement("p"); p.textContent = t; root.append(p) }</script>`))
    } }
  }],
  ["fetch-json", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "content fetched as JSON with fetch() from the same server", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Fetched", chrome(`<main id="content"></main>\n<script>fetch("/api/${name}.json").then((r) => r.json()).then((d) => { const main = document.getElementById("content"); for (const t of d.paragraphs) { const p = document.createElement("p"); p.textContent = t; main.append(p) } })</script>`))),
      [`/api/${name}.json`]: jsonRoute({ paragraphs: s })
    } }
  }],
  ["xhr-json", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "content fetched as JSON with XMLHttpRequest", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("XHR", chrome(`<div id="root"></div>\n<script>const x = new XMLHttpRequest(); x.open("GET", "/api/${name}.json"); x.onload = () => { const d = JSON.parse(x.responseText); document.getElementById("root").innerHTML = d.paragraphs.map((t) => "<p>" + t + "</p>").join("") }; x.send()</script>`))),
      [`/api/${name}.json`]: jsonRoute({ paragraphs: s })
    } }
  }],
  ["slow-api-800", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "JSON from an API that answers after 800 ms", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Slow API", chrome(`<main id="app"><p class="spinner">Loading</p></main>\n<script>fetch("/api/${name}.json").then((r) => r.json()).then((d) => { document.getElementById("app").innerHTML = d.paragraphs.map((t) => "<p>" + t + "</p>").join("") })</script>`))),
      [`/api/${name}.json`]: jsonRoute({ paragraphs: s }, 800)
    } }
  }],
  ["chained-requests", (seed, name) => {
    const s = sentences(seed, 4)
    return { kind: "an index JSON, then each article JSON it names, then render", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Chained", chrome(`<main id="app"></main>\n<script>(async () => { const index = await (await fetch("/api/${name}/index.json")).json(); const parts = []; for (const id of index.ids) parts.push(await (await fetch("/api/${name}/" + id + ".json")).json()); document.getElementById("app").innerHTML = parts.map((p) => "<p>" + p.text + "</p>").join("") })()</script>`))),
      [`/api/${name}/index.json`]: jsonRoute({ ids: ["a", "b", "c", "d"] }, 100),
      ...Object.fromEntries(["a", "b", "c", "d"].map((id, k) => [`/api/${name}/${id}.json`, jsonRoute({ text: s[k] }, 100)]))
    } }
  }],
  ...[300, 700, 1000, 1500].map((delay): [string, Make] => [`timeout-${delay}`, (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: `content added by setTimeout after ${delay} ms`, js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Delayed", chrome(`<main id="main"></main>\n<script>setTimeout(() => { const main = document.getElementById("main"); ${paragraphsJs("main", s)} }, ${delay})</script>`)))
    } }
  }]),
  ["fetch-then-timeout", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "JSON fetched, then rendered 600 ms later (an animation delay)", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Fetch then wait", chrome(`<main id="main"></main>\n<script>fetch("/api/${name}.json").then((r) => r.json()).then((d) => setTimeout(() => { document.getElementById("main").innerHTML = d.paragraphs.map((t) => "<p>" + t + "</p>").join("") }, 600))</script>`))),
      [`/api/${name}.json`]: jsonRoute({ paragraphs: s })
    } }
  }],
  ["interval-ticks", (seed, name) => {
    const s = sentences(seed, 5)
    return { kind: "one paragraph every 200 ms from setInterval (1 s in all)", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Ticks", chrome(`<main id="main"></main>\n<script>const lines = ${lit(s)}; const timer = setInterval(() => { const p = document.createElement("p"); p.textContent = lines.shift(); document.getElementById("main").append(p); if (lines.length === 0) clearInterval(timer) }, 200)</script>`)))
    } }
  }],
  ["hash-router", (seed, name) => {
    const home = sentences(seed, 2)
    const s = sentences(seed, 3, 2)
    return { kind: "hash-routed SPA, scraped at #/pricing", js: true, path: `/p/${name}#/pricing`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Hash router", `<div id="app"></div>\n<script>const routes = { "/": ${lit(home)}, "/pricing": ${lit(s)} }; const render = () => { const lines = routes[location.hash.slice(1) || "/"] || ["Not found"]; document.getElementById("app").innerHTML = "<h1>" + (location.hash.slice(1) || "/") + "</h1>" + lines.map((t) => "<p>" + t + "</p>").join("") }; window.addEventListener("hashchange", render); render()</script>`))
    } }
  }],
  ["history-router", (seed, name) => {
    const s = sentences(seed, 3)
    const shell = html("History router", `<div id="root"></div>\n<script type="module" src="/js/${name}.mjs"></script>`)
    return { kind: "pushState SPA: the same shell at every path, rendered from location.pathname by a module script", js: true, path: `/p/${name}/guides/setup`, beyond: [], sentences: s, routes: {
      [`/p/${name}/guides/setup`]: htmlRoute(shell),
      [`/js/${name}.mjs`]: jsRoute(`import { pages } from "/js/${name}-data.mjs"\nconst lines = pages[location.pathname.split("/").slice(-2).join("/")] || ["Not found"]\ndocument.getElementById("root").innerHTML = "<article>" + lines.map((t) => "<p>" + t + "</p>").join("") + "</article>"`),
      [`/js/${name}-data.mjs`]: jsRoute(`export const pages = { "guides/setup": ${lit(s)} }`)
    } }
  }],
  ["shadow-dom", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "custom element rendering its text in an open shadow root", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Shadow DOM", chrome(`<main><fixture-story></fixture-story></main>\n<script>customElements.define("fixture-story", class extends HTMLElement { connectedCallback() { const root = this.attachShadow({ mode: "open" }); root.innerHTML = "<style>p { color: navy }</style>" + ${lit(s)}.map((t) => "<p>" + t + "</p>").join("") } })</script>`)))
    } }
  }],
  ["declarative-shadow-dom", (seed, name) => {
    const s = sentences(seed, 2)
    return { kind: "declarative shadow DOM (template shadowrootmode) around a script-filled slot", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Declarative shadow DOM", `<main><fixture-card><template shadowrootmode="open"><section><slot></slot></section></template></fixture-card></main>\n<script>const card = document.querySelector("fixture-card"); ${paragraphsJs("card", s)}</script>`))
    } }
  }],
  ["custom-element", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "custom elements writing light-DOM innerHTML when connected", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Custom element", chrome(`<main>${s.map((_, k) => `<fixture-note data-k="${k}"></fixture-note>`).join("")}</main>\n<script>const lines = ${lit(s)}; customElements.define("fixture-note", class extends HTMLElement { connectedCallback() { this.innerHTML = "<p>" + lines[Number(this.dataset.k)] + "</p>" } })</script>`)))
    } }
  }],
  ["lazy-images", (seed, name) => {
    const s = sentences(seed, 8)
    const figures = s.map((t, k) => `<figure style="min-height: 500px"><img data-src="/img/${name}-${k}.png" width="400" height="400" alt="figure ${k}"><figcaption>${t}</figcaption></figure>`)
    return { kind: "gallery rendered by script, images lazy-loaded by IntersectionObserver; captions run 4,000 px down", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Lazy images", `<main id="gallery"></main>\n<script>document.getElementById("gallery").innerHTML = ${lit(figures.join(""))}; const io = new IntersectionObserver((entries) => { for (const e of entries) if (e.isIntersecting) { e.target.src = e.target.dataset.src; io.unobserve(e.target) } }); document.querySelectorAll("img[data-src]").forEach((img) => io.observe(img))</script>`)),
      ...Object.fromEntries(s.map((_, k) => [`/img/${name}-${k}.png`, pngRoute]))
    } }
  }],
  ["infinite-scroll", (seed, name) => {
    const first = sentences(seed, 12)
    const next = sentences(seed, 4, 12)
    return { kind: "infinite feed: the first batch (taller than the screen) from JSON, the next when the sentinel is seen", js: true, path: `/p/${name}`, sentences: first, beyond: next, routes: {
      [`/p/${name}`]: htmlRoute(html("Feed", `<main><ol id="feed"></ol><div id="sentinel">more</div></main>\n<script>let page = 0, loading = false; const load = async () => { if (loading || page >= 2) return; loading = true; page++; const d = await (await fetch("/api/${name}-" + page + ".json")).json(); for (const t of d.items) { const li = document.createElement("li"); li.style.minHeight = "120px"; li.textContent = t; document.getElementById("feed").append(li) } loading = false }; load().then(() => new IntersectionObserver((e) => { if (e[0].isIntersecting) load() }).observe(document.getElementById("sentinel")))</script>`)),
      [`/api/${name}-1.json`]: jsonRoute({ items: first }),
      [`/api/${name}-2.json`]: jsonRoute({ items: next })
    } }
  }],
  ["client-template", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "client-side template: <template> rows cloned with data from JSON", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Template", chrome(`<main><table><tbody id="rows"></tbody></table></main>\n<template id="row"><tr><td class="n"></td><td class="text"></td></tr></template>\n<script>fetch("/api/${name}.json").then((r) => r.json()).then((d) => d.rows.forEach((text, n) => { const row = document.getElementById("row").content.cloneNode(true); row.querySelector(".n").textContent = String(n + 1); row.querySelector(".text").textContent = text; document.getElementById("rows").append(row) }))</script>`))),
      [`/api/${name}.json`]: jsonRoute({ rows: s })
    } }
  }],
  ["mustache-template", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "string template ({{ }} placeholders in a text/template script) filled on DOMContentLoaded", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Mustache", `<div id="out"></div>\n<script type="text/template" id="t"><article><h2>{{title}}</h2><p>{{first}}</p><p>{{second}}</p><p>{{third}}</p></article></script>\n<script>document.addEventListener("DOMContentLoaded", () => { const v = { title: "Chronicle", first: ${lit(s[0])}, second: ${lit(s[1])}, third: ${lit(s[2])} }; document.getElementById("out").innerHTML = document.getElementById("t").textContent.replace(/{{(\\w+)}}/g, (_, k) => v[k]) })</script>`))
    } }
  }],
  ["document-write", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "document.write during parsing", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("document.write", `<main>\n<script>for (const t of ${lit(s)}) document.write("<p>" + t + "</p>")</script>\n</main>`))
    } }
  }],
  ["external-bundle", (seed, name) => {
    const s = sentences(seed, 4)
    const filler = Array.from({ length: 400 }, (_, k) => `function unused${k}(a) { return a * ${k} + ${k % 7} }`).join("\n")
    return { kind: "a 20 KB external bundle, slow to arrive (400 ms), renders into #app", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Bundle", `<div id="app"></div>`, `<script src="/js/${name}.js" defer></script>`)),
      [`/js/${name}.js`]: jsRoute(`${filler}\ndocument.getElementById("app").innerHTML = "<article>" + ${lit(s)}.map((t) => "<p>" + t + "</p>").join("") + "</article>"`, 400)
    } }
  }],
  ["noscript-hint", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "a noscript asking for JavaScript, the app in a div of its own id", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Noscript", chrome(`<noscript>You need to enable JavaScript to run this app.</noscript><div id="mount"></div>\n<script>document.getElementById("mount").innerHTML = ${lit(s)}.map((t) => "<p>" + t + "</p>").join("")</script>`)))
    } }
  }],
  ["chrome-empty-main", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "static navigation, sidebar and footer (~500 characters) around an empty <main> filled from JSON", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Site with chrome", longChrome(`<main id="page-content"></main>\n<script>fetch("/api/${name}.json").then((r) => r.json()).then((d) => { document.getElementById("page-content").innerHTML = "<article><h1>Story</h1>" + d.paragraphs.map((t) => "<p>" + t + "</p>").join("") + "</article>" })</script>`))),
      [`/api/${name}.json`]: jsonRoute({ paragraphs: s })
    } }
  }],
  ["chrome-skeleton", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "static chrome (~500 characters) around a \"Loading...\" skeleton replaced after 500 ms", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Skeleton", longChrome(`<div class="content"><div class="skeleton">Loading...</div></div>\n<script>setTimeout(() => { document.querySelector(".content").innerHTML = "<article>" + ${lit(s)}.map((t) => "<p>" + t + "</p>").join("") + "</article>" }, 500)</script>`)))
    } }
  }]
]

/** Navigation of a large site: ~2,000 characters of links in a header and a footer. */
const megaMenu = (inner: string) => {
  const sections = ["Products", "Solutions", "Industries", "Resources", "Company", "Support"]
  const links = (section: string) => Array.from({ length: 8 }, (_, k) => `<li><a href="/${section.toLowerCase()}/${k}">${section} overview part ${k + 1}</a></li>`).join("")
  return `<header><nav>${sections.map((s) => `<div><h3>${s}</h3><ul>${links(s)}</ul></div>`).join("")}</nav></header>\n${inner}\n<footer><nav>${sections.slice(0, 3).map((s) => `<ul>${links(s)}</ul>`).join("")}</nav><p>Copyright the fixture company.</p></footer>`
}

/**
 * Pages added after the detection rules were tuned on the ones above (00:15 UTC, 25 Nov): a check
 * of how the rules generalise, not pages the rules were written for.
 */
const heldOut: Array<[string, Make]> = [
  ["mega-menu", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "held out: ~2,000 characters of header and footer navigation around a content div filled from JSON", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Mega menu", megaMenu(`<div class="article-body" id="body"></div>\n<script>fetch("/api/${name}.json").then((r) => r.json()).then((d) => { document.getElementById("body").innerHTML = d.paragraphs.map((t) => "<p>" + t + "</p>").join("") })</script>`))),
      [`/api/${name}.json`]: jsonRoute({ paragraphs: s })
    } }
  }],
  ["product-description", (seed, name) => {
    const s = sentences(seed, 3)
    return { kind: "held out: a product page whose name and price are served, its description rendered from inline JSON", js: true, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Product", longChrome(`<div class="product"><h1>Fixture kettle</h1><p class="price">49 euros</p><div class="product-description" id="description"></div></div>\n<script type="application/json" id="product-data">${lit({ description: s })}</script>\n<script>document.getElementById("description").innerHTML = JSON.parse(document.getElementById("product-data").textContent).description.map((t) => "<p>" + t + "</p>").join("")</script>`)))
    } }
  }]
]

const articleText = (seed: number): Array<string> => sentences(seed, 12)
const article = (lines: ReadonlyArray<string>) =>
  `<article><h1>A static story</h1>${[0, 4, 8].map((k) => `<p>${lines.slice(k, k + 4).join(" ")}</p>`).join("\n")}</article>`

const controls: Array<[string, Make]> = [
  ["static-article", (seed, name) => {
    const s = articleText(seed)
    return { kind: "static article, no scripts", js: false, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Static", chrome(`<main>${article(s)}</main>`)))
    } }
  }],
  ["static-with-analytics", (seed, name) => {
    const s = articleText(seed)
    return { kind: "static article with analytics and widget scripts", js: false, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Static with scripts", chrome(`<main>${article(s)}</main>\n<script>window.dataLayer = []; dataLayer.push({ event: "view" })</script><script src="/js/${name}.js" async></script>`), `<script>(function () { window.ga = function () {} })()</script>`)),
      [`/js/${name}.js`]: jsRoute(`window.widget = { loaded: true }`)
    } }
  }],
  ["server-rendered-root", (seed, name) => {
    const s = articleText(seed)
    return { kind: "server-rendered #root with a hydration script", js: false, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("SSR", `<div id="root">${article(s)}</div>\n<script>window.__HYDRATE__ = true; document.getElementById("root").dataset.hydrated = "1"</script>`))
    } }
  }],
  ["static-noscript-comments", (seed, name) => {
    const s = articleText(seed)
    return { kind: "static article whose comment widget says \"enable JavaScript to see comments\"", js: false, path: `/p/${name}`, beyond: [], sentences: s, routes: {
      [`/p/${name}`]: htmlRoute(html("Comments", chrome(`<main>${article(s)}<div id="comments"></div><noscript>Please enable JavaScript to view the comments.</noscript></main>\n<script src="/js/${name}.js" async></script>`))),
      [`/js/${name}.js`]: jsRoute(`document.getElementById("comments").textContent = "0 comments"`)
    } }
  }]
]

/** Every page of the corpus, JavaScript pages first. */
export const corpus = (): Array<Page> =>
  [...js, ...heldOut, ...controls].map(([name, make], seed) => page(seed + 1, name, make))

/**
 * A realistic ~30 KB news-style article page for the load run: head metadata, a navigation bar,
 * the article (headings, paragraphs with links and emphasis, a list, a table, a figure), a related
 * links aside and a footer, so the scrape does the work a real page asks for.
 */
import { prng } from "./Hostile.ts"

const words = (
  "the council said on tuesday that its plan for the river district would add housing parks and a " +
  "new tram line while critics argued the budget left out schools and that residents had not been " +
  "consulted about the changes which are expected to take five years and cost more than planned"
).split(" ")

export const articleHtml = (targetBytes = 30_000, seed = 3): string => {
  const random = prng(seed)
  const sentence = () => {
    const n = 12 + Math.floor(random() * 14)
    const text = Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(" ")
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`
  }
  const paragraph = (i: number) =>
    `<p>${sentence()} ${i % 3 === 0 ? `<a href="/news/related-${i}">${sentence()}</a>` : sentence()} <em>${sentence()}</em> ${sentence()}</p>`
  const nav = `<nav class="site-nav"><ul>${["Home", "World", "Politics", "Business", "Science", "Sport", "Culture", "Opinion"].map((s) => `<li><a href="/${s.toLowerCase()}">${s}</a></li>`).join("")}</ul></nav>`
  const table = `<table><thead><tr><th>Phase</th><th>Start</th><th>Cost (m)</th></tr></thead><tbody>${Array.from({ length: 8 }, (_, i) => `<tr><td>Phase ${i + 1}</td><td>${2026 + i}</td><td>${(12.5 * (i + 1)).toFixed(1)}</td></tr>`).join("")}</tbody></table>`
  let body = ""
  let i = 0
  while (body.length < targetBytes - 4000) {
    if (i % 6 === 0) body += `<h2>${sentence().slice(0, 48)}</h2>`
    if (i === 4) body += `<ul>${Array.from({ length: 6 }, () => `<li>${sentence()}</li>`).join("")}</ul>`
    if (i === 9) body += table
    if (i === 12) body += `<figure><img src="/img/river.jpg" alt="The river district at dusk" width="800" height="450"><figcaption>${sentence()}</figcaption></figure>`
    body += paragraph(i++)
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>River district plan approved</title>` +
    `<meta name="description" content="The council approved the river district plan."><meta property="og:title" content="River district plan approved">` +
    `<link rel="canonical" href="https://news.example/river-district"></head><body><header><a href="/" class="logo">The Example Times</a>${nav}</header>` +
    `<main><article><h1>River district plan approved after long debate</h1><p class="byline">By A. Reporter · 24 November 2026</p>${body}</article>` +
    `<aside><h3>Related</h3><ul>${Array.from({ length: 5 }, (_, k) => `<li><a href="/news/${k}">${sentence().slice(0, 60)}</a></li>`).join("")}</ul></aside></main>` +
    `<footer><p>© 2026 The Example Times</p><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer></body></html>`
}

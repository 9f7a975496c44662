/**
 * The later main-content rules, each on a small hand-written page: recirculation blocks
 * recognised by their heading text when class names say nothing.
 */
import type { Root } from "hast"
import { fromHtml } from "hast-util-from-html"
import { toText } from "hast-util-to-text"
import { describe, expect, it } from "vitest"
import { dropLinkTrees, extractMainContent, readMainContentHints } from "../../src/html/MainContent.ts"
import { isRecirculationBlock } from "../../src/html/MainContentHeadings.ts"
import { prunePage } from "../../src/html/MainContentClean.ts"
import { computeStats, findBody } from "../../src/html/MainContentNodes.ts"

const extract = (html: string, url = "https://example.com/page"): string => {
  const tree: Root = fromHtml(html)
  const out = extractMainContent(tree, { url, hints: readMainContentHints(tree, url) })
  return toText(out).replace(/\s+/g, " ")
}

const prose = (topic: string, n: number): string =>
  Array.from({ length: n }, (_, i) => `<p>Paragraph ${i + 1} about ${topic}, with enough words, commas and detail to read as prose, which is what a reader came for.</p>`).join("\n")

describe("recirculation headings", () => {
  const teaserLinks = ["Ten ways to prune roses", "Why tomatoes split", "Compost in winter", "Choosing a rain barrel"]
    .map((t, i) => `<li><a href="/story-${i}">${t}</a></li>`)
    .join("")

  it("drops a block its heading calls 'You may also like', whatever its classes", () => {
    const html = `<html><body><div class="a1">
      <div class="q7"><h1>Growing garlic</h1>${prose("garlic", 8)}</div>
      <div class="z3"><div class="k2"><h3>You may also like</h3></div><ul>${teaserLinks}</ul></div>
      <div class="z4"><h2>Related Stories:</h2><ul>${teaserLinks}</ul></div>
    </div></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 8 about garlic")
    expect(text).not.toContain("You may also like")
    expect(text).not.toContain("Related Stories")
    expect(text).not.toContain("Why tomatoes split")
  })

  it("prunes such a block before scoring, even from the chrome-only pass", () => {
    const tree: Root = fromHtml(`<html><body><main>${prose("garlic", 8)}</main>
      <div class="x1"><div><h4>Customers who viewed this item also viewed</h4></div>${teaserLinks}</div>
      <div class="x2"><h4>Care instructions</h4>${teaserLinks}</div></body></html>`)
    const body = findBody(tree)
    const stats = computeStats(body)
    const blocks = (body.children.filter((c) => c.type === "element") as Array<import("hast").Element>).filter((c) => c.tagName === "div")
    expect(blocks.map((b) => isRecirculationBlock(b, stats))).toEqual([true, false])
    const pruned = prunePage(body, stats, { stripUnlikely: true, stripHidden: true, keepComments: false, chromeOnly: true })
    const text = toText(pruned)
    expect(text).not.toContain("also viewed")
    expect(text).toContain("Care instructions")
  })

  it("keeps a block of text of its own under such a heading (a thread titled 'Recommended Posts')", () => {
    const html = `<html><body><div class="a1">
      <div class="q7"><h1>Growing garlic</h1>${prose("garlic", 8)}</div>
      <div class="t1"><h2>Recommended Posts</h2>${prose("a reply", 3)}<a href="/u/1">ana</a></div>
    </div></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 3 about a reply")
  })

  it("keeps a block whose heading merely mentions a recommendation", () => {
    const html = `<html><body><div class="a1">
      <div class="q7"><h1>Growing garlic</h1>${prose("garlic", 8)}
      <section><h2>Recommended varieties for cold climates</h2><ul><li>Music, a porcelain type with large cloves</li><li>German Extra Hardy, which stores for months</li><li>Chesnok Red, good for roasting</li></ul></section></div>
    </div></body></html>`
    const text = extract(html)
    expect(text).toContain("Recommended varieties for cold climates")
  })
})

describe("forum signatures in table layouts", () => {
  it("drops signatures inside the post cells of a table-laid thread, keeping names and posts", () => {
    const post = (user: string, text: string, sig: string) =>
      `<tr><td class="alt2"><a href="/member.php?u=1">${user}</a> Registered User</td>
       <td class="msg"><div class="msg_body">${text}</div><div class="signature"><div class="sig_text">${sig}</div></div></td></tr>`
    const html = `<html><head><meta name="generator" content="vBulletin 3.8"></head><body>
      <div class="navbar"><a href="/">Forum</a> <a href="/f/5">Players</a></div>
      <table class="posts">
        ${post("ana", "The player reports 23.951 Hz instead of 23.976 Hz whatever driver I install, which makes films stutter.", "Currently playing: three games at once")}
        ${post("ben", "Disabling hardware decoding fixed it here; the driver rounds the custom mode otherwise, so try that first.", "Switch friend code SW-0000-1111")}
        ${post("ana", "That worked, thank you. The custom resolution now sticks after a reboot and playback is smooth again.", "Currently playing: three games at once")}
      </table></body></html>`
    const text = extract(html, "https://forum.example.org/showthread.php?t=186269")
    expect(text).toContain("whatever driver I install")
    expect(text).toContain("Disabling hardware decoding fixed it here")
    expect(text).toContain("ben")
    expect(text).not.toContain("Currently playing")
    expect(text).not.toContain("friend code")
  })
})

describe("forum post furniture", () => {
  it("drops the poster's counters, the vote widget and the post's action links, keeping names and posts", () => {
    const post = (user: string, text: string) =>
      `<div class="post"><div class="user"><a href="/u/${user}">${user}</a><div>Original Poster</div><dl><dd>Join Date: Aug 2011</dd><dd>Posts: 1,204</dd></dl></div>
       <div class="when"><span>Oct 17, 2010 at 16:21</span> <span>2010-10-17 16:21:07 +00:00</span></div>
       <div class="body"><p>${text}</p></div><div class="bar"><span>Upvote 3 Downvote</span> <span>2 likes</span> <a href="/quote">Quote</a> <a href="/reply">Reply</a> <a href="/report">Report inappropriate content</a></div></div>`
    const html = `<html><head><meta name="generator" content="vBulletin 3.8"></head><body><main>
      ${post("ana", "The lounge in terminal two was closed for renovation, so we waited at the gate with everyone else.")}
      ${post("ben", "The new lounge opened last month and is much larger, with showers and a quiet room at the back.")}
      ${post("cy", "Thanks for the report; we fly through there on May 3, 2011 at 10:15 and will look for the quiet room then.")}
      <p>1,204 Views</p><p><a href="/f/5">Go to topic listing</a></p></main></body></html>`
    const text = extract(html, "https://forum.example.org/showthread.php?t=2212958")
    expect(text).toContain("terminal two was closed")
    expect(text).toContain("on May 3, 2011 at 10:15 and will look")
    expect(text).toContain("ben")
    for (const gone of ["Original Poster", "Join Date", "Posts: 1,204", "Upvote", "2 likes", "Quote", "Reply", "Report inappropriate", "1,204 Views", "Go to topic listing", "Oct 17, 2010", "16:21:07"]) expect(text).not.toContain(gone)
  })
})

describe("streamed pages", () => {
  const chunk = (n: number) =>
    `<div id="chunk${n}" style="display:none"><section><h2>Result ${n}</h2>${prose(`result ${n}`, 4)}</section></div>`

  it("keeps content that a streamed render sends in hidden chunks when almost nothing is visible", () => {
    const html = `<html><body><div hidden>Loading</div><div class="shell"><a href="/">Home</a></div>
      ${[1, 2, 3, 4, 5].map(chunk).join("\n")}</body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 4 about result 1")
    expect(text).toContain("Paragraph 2 about result 5")
  })

  it("still drops hidden blocks when the page shows its content", () => {
    const html = `<html><body><main><h1>Growing garlic</h1>${prose("garlic", 8)}</main>
      <div style="display:none"><p>Hidden popover text that the page never shows to readers, about another subject entirely.</p></div></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 8 about garlic")
    expect(text).not.toContain("Hidden popover text")
  })
})

describe("disclosures", () => {
  const answer = (n: number) => `Answer ${n}: the shoe weighs about nine ounces, light for a cushioned trainer, and the foam keeps its bounce for months.`

  it("keeps hidden panels opened by a heading's toggle, a toggle naming them, or a toggle widget's content", () => {
    const accordion = [1, 2, 3].map((n) => `<h3><button aria-expanded="false">Question ${n}</button></h3><div hidden aria-hidden="true"><p>${answer(n)}</p></div>`).join("")
    const controlled = `<div><button aria-expanded="false" aria-controls="panel-4">Question 4</button></div><div id="panel-4" style="display:none"><p>${answer(4)}</p></div>`
    const toggle = `<div class="toggle"><span>Question 5</span><div class="toggle__content" style="display: none"><p>${answer(5)}</p></div></div>`
    const text = extract(`<html><body><main><h1>Running shoes</h1>${prose("shoes", 6)}${accordion}${controlled}${toggle}</main></body></html>`)
    for (const n of [1, 3, 4, 5]) expect(text).toContain(`Answer ${n}: the shoe weighs`)
  })

  it("still drops a hidden popover after a dropdown toggle that neither heads nor names it", () => {
    const html = `<html><body><main><h1>Running shoes</h1>${prose("shoes", 6)}
      <span><a aria-expanded="false" href="#">Add to list</a></span><div style="display:none"><p>There was an error retrieving your wish lists, please try again later.</p></div></main></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 6 about shoes")
    expect(text).not.toContain("error retrieving your wish lists")
  })
})

describe("repeated passages", () => {
  it("keeps one copy of a passage sent twice (desktop and mobile layouts) and keeps short repeated labels", () => {
    const intro = "Our studio designs packaging for small cosmetic brands, from the first sketch to the printed box."
    const html = `<html><body><main>
      <div class="desktop"><h1>Packaging design</h1><p>${intro}</p><p><span>${intro.replace("small", "independent")}</span></p></div>
      <div class="mobile"><p>${intro}</p></div>
      ${prose("the process", 6)}
      <ul><li>Reply</li><li>Reply</li></ul>
    </main></body></html>`
    const text = extract(html)
    expect(text.split("for small cosmetic brands").length - 1).toBe(1)
    expect(text).toContain("for independent cosmetic brands")
    expect(text).toContain("Paragraph 6 about the process")
  })

  it("keeps a paragraph its own run of prose repeats (a refrain), and drops the copy another layout sends", () => {
    const refrain = "And still the river runs to the sea, and still the sea is never full, and so we sing it again."
    const html = `<html><body><main><h1>A song</h1>
      <div class="verses">${prose("the first verse", 3)}<p>${refrain}</p>${prose("the second verse", 3)}<p>${refrain}</p></div>
      <div class="mobile"><p>${refrain}</p></div></main></body></html>`
    const text = extract(html)
    expect(text.split("never full").length - 1).toBe(2)
  })

  it("does not drop a block because its only child repeats its own text", () => {
    const html = `<html><body><main><h1>Garlic</h1>${prose("garlic", 6)}
      <div class="note"><span>A closing note that is long enough to count as a passage of its own, said only once.</span></div></main></body></html>`
    const text = extract(html)
    expect(text).toContain("A closing note that is long enough")
  })

  it("drops a label's screen-reader copy right after it, and keeps a ticker's run and copies apart", () => {
    const html = `<html><body><main><h1>Garlic press</h1>${prose("the press", 6)}
      <div class="price">USD 14.20<span class="clip">USD 14.20</span></div>
      <div class="title"><span aria-hidden="true">Press, stainless</span><span class="clip">Press, stainless</span></div>
      <div class="ticker"><span>Order now</span><span>Order now</span><span>Order now</span></div>
      <p><b>Dishwasher safe.</b> Rinse it first. <b>Dishwasher safe.</b></p></main></body></html>`
    const text = extract(html)
    expect(text.split("USD 14.20").length - 1).toBe(1)
    expect(text.split("Press, stainless").length - 1).toBe(1)
    expect(text.split("Order now").length - 1).toBe(3)
    expect(text.split("Dishwasher safe").length - 1).toBe(2)
  })
})

describe("sidebars beside the article", () => {
  it("drops an <aside> that holds more text than the article beside it (a live feed)", () => {
    const feed = Array.from({ length: 14 }, (_, i) => `<li><a href="/live/${i}">1${i}:05</a> <p>Live item ${i}: the council met again today, and the vote on the new bridge, which many residents oppose, was put off until spring.</p></li>`).join("")
    const html = `<html><body><div class="page"><div class="grid">
      <div class="col"><article><h1>Bridge vote</h1>${prose("the bridge", 4)}</article></div>
      <aside id="sidebar" role="complementary"><div class="live"><a href="/live">Live</a><ul>${feed}</ul></div></aside>
    </div></div></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 3 about the bridge")
    expect(text).not.toContain("Live item 7")
  })
})

describe("section anchors", () => {
  it("keeps a section whose id spells its heading, even when the words look like a widget's name, and still drops a share widget", () => {
    const html = `<html><body><div class="document"><div class="body">
      <div class="section" id="working-alone"><h1>Working alone</h1>${prose("working alone", 4)}</div>
      <div class="section" id="setting-up"><h2>Setting up</h2>${prose("setting up", 4)}</div>
      <div class="section" id="first-steps"><h2>First steps</h2>${prose("first steps", 4)}</div>
      <div class="section" id="sharing-with-multiple-developers-code-review"><h2>Sharing with multiple developers: code review<a class="headerlink" href="#x">¶</a></h2>${prose("code review", 4)}</div>
      <div class="section" id="related-work"><h2>Related work</h2>${prose("earlier tools", 3)}</div>
      <div id="share-buttons"><h3>Share</h3><a href="/s/1">Facebook</a> <a href="/s/2">Mail</a> <span>Tell a friend about this tutorial today</span></div>
    </div></div></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 4 about code review")
    expect(text).toContain("Paragraph 3 about earlier tools")
    expect(text).not.toContain("Tell a friend")
  })
})

describe("link trees on multi-block pages", () => {
  it("drops a nested menu of links, keeps flat link lists and the blocks", () => {
    const items = (prefix: string) => Array.from({ length: 5 }, (_, i) => `<li><a href="/${prefix}/${i}">${prefix} service ${i}</a></li>`).join("")
    const menu = `<ul class="x-list"><li><a href="/audit">Audit</a><ul>${items("audit")}</ul></li><li><a href="/tax">Tax</a><ul>${items("tax")}</ul></li></ul>`
    const flat = `<ul>${items("listing")}${items("more")}</ul>`
    const block = (n: number) =>
      `<div class="blk"><h2>Offer ${n}</h2><p>We help growing firms with offer ${n}, from the first review to a plan that the board signs off.</p></div>`
    const tree: Root = fromHtml(`<div class="w2">${menu}${[1, 2, 3, 4, 5, 6, 7, 8].map(block).join("")}${flat}</div>`, { fragment: true })
    const stats = computeStats(tree)
    let total = 0
    for (const c of tree.children) if (c.type === "element") total += stats.get(c)?.chars ?? 0
    const text = toText(dropLinkTrees(tree, stats, total))
    expect(text).toContain("We help growing firms with offer 8")
    expect(text).toContain("listing service 3")
    expect(text).not.toContain("tax service 3")
  })
})

describe("reading lists inside an article", () => {
  it("keeps a list of descriptive link titles and drops a list of short link labels", () => {
    const courses = ["Critical Thinking for Better Judgment and Decision-Making", "Psychological research, obedience and ethics in practice", "International relations: exploring territorial divisions", "Nonlinear Dynamics: Mathematical and Computational Approaches"]
      .map((t, i) => `<li><a href="/course/${i}">${t}</a></li>`)
      .join("")
    const labels = ["Home", "Courses", "Reports", "About", "Contact"].map((t) => `<li><a href="/${t}">${t}</a></li>`).join("")
    const html = `<html><body><div class="a1"><div class="q7"><h1>Free certificates</h1>${prose("free courses", 6)}
      <h2>Humanities</h2><ul>${courses}</ul>${prose("more courses", 3)}<ul>${labels}</ul></div></div></body></html>`
    const text = extract(html)
    expect(text).toContain("Psychological research, obedience and ethics in practice")
    expect(text).toContain("Nonlinear Dynamics")
    expect(text).not.toContain("Contact")
  })
})

describe("calls to action", () => {
  it("drops blocks that are only a call to action and keeps the phrase in running text", () => {
    const html = `<html><body><main><h1>Garlic</h1>${prose("garlic", 6)}
      <p><a href="/more">Read more »</a></p><div class="btn"><a href="/join">Sign up for free</a></div><h3>Leave a Reply</h3>
      <p><a href="/story">Read the full story</a></p><div><a href="/quote">Get a free quote</a></div><h2>Discussion about this post</h2><p>Ready for more?</p><p><a href="/cs">Read case study</a></p><div>Sponsored</div><div>Loading...</div><p><a href="#top">Back to top ↑</a></p><span>Free shipping</span> <span>Best Seller</span>
      <p>To read more about curing, sign up at the allotment office and learn more from the older growers there.</p></main></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 6 about garlic")
    expect(text).not.toContain("Read more »")
    expect(text).not.toContain("Sign up for free")
    expect(text).not.toContain("Leave a Reply")
    for (const cta of ["Read the full story", "Get a free quote", "Discussion about this post", "Ready for more", "Read case study", "Sponsored", "Loading", "Back to top", "Free shipping", "Best Seller"]) expect(text).not.toContain(cta)
    expect(text).toContain("sign up at the allotment office and learn more")
  })
})

describe("tickers", () => {
  it("drops a phrase repeated as a marquee, as one block or as a run of identical items, and keeps lists of distinct items", () => {
    const ticker = Array.from({ length: 12 }, () => "Book Now *").join("")
    const run = `<div class="t1"><ul>${Array.from({ length: 8 }, () => "<li><p>SECURE YOUR SPOT - ENROL NOW</p></li>").join("")}</ul></div>`
    const steps = `<ul>${["Mix the flour", "Add the water", "Knead the dough", "Bake for an hour"].map((t) => `<li>${t}</li>`).join("")}</ul>`
    const text = extract(`<html><body><main><h1>Bread class</h1>${prose("bread", 6)}<p>${ticker}</p>${run}${steps}</main></body></html>`)
    expect(text).toContain("Paragraph 6 about bread")
    expect(text).not.toContain("Book Now")
    expect(text).not.toContain("SECURE YOUR SPOT")
    expect(text).toContain("Knead the dough")
  })

  it("keeps a repeated sentence (filler text of a test page is still prose)", () => {
    const filler = "A sentence of real article text, with commas, that goes on. ".repeat(12)
    const text = extract(`<html><body><main><h1>Heading</h1><p>${filler}</p></main></body></html>`)
    expect(text).toContain("A sentence of real article text, with commas")
  })

  it("judges long separator-heavy blocks in linear time (no backtracking blow-up)", () => {
    const odd = `<p>${"- - ".repeat(1000)}x</p><p>${"ab ".repeat(1300)}z</p><p>${"-a -a ".repeat(600)}q</p>`
    const text = extract(`<html><body><main><h1>Bread class</h1>${prose("bread", 6)}${odd}</main></body></html>`)
    expect(text).toContain("Paragraph 6 about bread")
    expect(text).toContain("ab ab ab")
  })
})

describe("sign-up and consent small print", () => {
  it("drops newsletter and consent small print, keeps prose that mentions subscribing or cookies", () => {
    const html = `<html><body><main><h1>Garlic</h1>${prose("garlic", 6)}
      <p>Baking cookies with roasted garlic is an acquired taste; we use cookies of this kind at harvest parties.</p>
      <p>You can join our lively growers community forums to share with peers who understand the soil.</p>
      <div><h3>Stay in touch</h3><p>Sign up for our weekly garden newsletter and get planting tips.</p>
      <small>By subscribing, you agree to our Terms of Use and Privacy Policy. You can unsubscribe at any time.</small></div>
      <p>By providing my email, I am consenting to receive marketing emails.</p></main></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 6 about garlic")
    expect(text).toContain("Baking cookies with roasted garlic")
    expect(text).toContain("join our lively growers community")
    expect(text).not.toContain("weekly garden newsletter")
    expect(text).not.toContain("By subscribing")
    expect(text).not.toContain("consenting to receive")
  })

  it("drops form status lines, placeholder copy and invitations to sign up, start a trial or rate the page", () => {
    const html = `<html><body><main><h1>Garlic</h1>${prose("garlic", 6)}
      <p>Most growers sign up for a plot in autumn, and a free trial of the soil test kit comes with every seed order.</p>
      <div class="w-form-done"><div>Thank you! Your submission has been received!</div></div>
      <div class="w-form-fail"><div>Oops! Something went wrong while submitting the form.</div></div>
      <p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>
      <p>Sign up for 30-day free trial. No credit card required.</p>
      <p><a href="/trial">Start your free trial</a></p>
      <p>Fill out the form below and we will get back to you.</p>
      <div><p>Was this page helpful?</p><button>Yes</button><button>No</button></div>
      <p>Disclosure: some of my posts contain affiliate links. If you buy through them I may earn a commission.</p>
      <p>Every item on this page was chosen by an editor. We may earn commission on some of the items you choose to buy.</p>
      <p>Tags: garlic, autumn, planting</p>
      <p>Copyright © 2011-2025 The Garlic Journal. All rights reserved.</p>
      <p>Sale ends 03/31. While supplies last. Use coupon code SPRING at checkout.</p>
      <p>‡Subject to credit approval. Minimum monthly payments required. See store for details.</p>
      <p>The garlic journal has reserved all rights to its photographs, which it licenses to schools for free.</p></main></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 6 about garlic")
    expect(text).toContain("Most growers sign up for a plot")
    expect(text).toContain("has reserved all rights to its photographs")
    for (const gone of ["Your submission has been received", "Something went wrong", "Lorem ipsum", "30-day free trial", "Start your free trial", "Fill out the form", "Was this page helpful", "affiliate links", "Tags: garlic", "Copyright ©", "coupon code SPRING", "credit approval", "earn commission"]) {
      expect(text).not.toContain(gone)
    }
  })
})

describe("page chrome around an empty main", () => {
  it("keeps nothing of the site footer when the page's <main> is empty (a script-rendered listing)", () => {
    const html = `<html><body><header><a href="/">Shop</a></header><main><div id="app"></div></main>
      <footer><h2>About the shop</h2><p>We are a small shop selling second-hand jackets, repaired by hand in our workshop, since 1998, and we ship everywhere.</p>
      <p>Our workshop is open on weekdays, and we answer every message about sizes, repairs, returns and shipping within a day.</p></footer></body></html>`
    expect(extract(html).trim()).not.toContain("second-hand jackets")
  })

  it("does not take a spacing utility class ('pt-header') for a header", () => {
    const tree: Root = fromHtml(`<html><body><header class="top"><a href="/">Launches</a> <a href="/news">News</a></header>
      <div class="pt-header md:mt-navbar"><h1>Top products launching today</h1>
      <p>For the first hours of the day, votes are hidden to give every product a chance.</p></div>
      <div hidden id="S:1">${prose("a streamed chunk", 6)}</div></body></html>`)
    const body = findBody(tree)
    const pruned = prunePage(body, computeStats(body), { stripUnlikely: true, stripHidden: true, keepComments: false, chromeOnly: true })
    const text = toText(pruned)
    expect(text).toContain("Top products launching today")
    expect(text).not.toContain("Launches")
  })
})

describe("data tables in scroll boxes", () => {
  const table = (n: number) =>
    `<table><thead><tr><th>Week</th><th>Monday</th><th>Tuesday</th></tr></thead><tbody>${Array.from({ length: 6 }, (_, i) => `<tr><td>${i + 1}</td><td>Rest day ${n}-${i}</td><td>Easy run ${n}-${i}</td></tr>`).join("")}</tbody></table>`

  it("keeps a data table whose wrapper's class says scroll (utility or widget class)", () => {
    const html = `<html><body><div class="post"><h1>Training plan</h1>${prose("the plan", 5)}
      <div class="relative my-4"><div class="isolate overflow-x-scroll">${table(1)}</div></div>
      ${prose("the second block", 2)}
      <div class="table-scroll">${table(2)}</div>${prose("the end", 2)}</div></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 2 about the end")
    expect(text).toContain("Easy run 1-5")
    expect(text).toContain("Easy run 2-5")
  })
})

describe("comments on a blog laid out in a table", () => {
  const comment = (who: string) =>
    `<div class="comments-body"><p>I read this twice and I still think the argument about ${who}'s garden holds, whatever the weather did that spring.</p>
      <span class="comments-post">Posted by: <a href="mailto:x@example.com">${who}</a> at December 18, 2025 05:48 PM</span></div>`

  it("drops 'comments-body' blocks (a content word qualified by 'comments' does not rescue them), also inside a layout table cell", () => {
    const post = `<div class="blogbody"><h3 class="title">Pruning in winter</h3>${prose("pruning", 8)}</div>
      <div class="comments-head">Comments</div>${comment("John")}${comment("Groggy")}${comment("Karl")}`
    for (const page of [`<div id="container">${post}</div>`, `<div id="container"><table><tr><td class="blog">${post}</td></tr></table></div>`]) {
      const text = extract(`<html><body><div id="banner"><h1><a href="/">A weblog</a></h1></div>${page}</body></html>`)
      expect(text).toContain("Paragraph 8 about pruning")
      expect(text).not.toContain("Groggy")
      expect(text).not.toContain("whatever the weather")
    }
  })

  it("keeps what a data table's cells hold whatever their classes (menu-item, share)", () => {
    const rows = Array.from({ length: 8 }, (_, i) => `<tr><td><div class="menu-item">Soup ${i}</div></td><td><div class="share">${i + 3} EUR</div></td><td>Served on day ${i} with bread</td></tr>`).join("")
    const table = `<table><thead><tr><th>Dish</th><th>Price</th><th>Notes</th></tr></thead><tbody>${rows}</tbody></table>`
    const text = extract(`<html><body><div class="post"><h1>Lunch menu</h1>${prose("lunch", 3)}${table}${prose("dinner", 2)}</div></body></html>`)
    expect(text).toContain("Soup 7")
    expect(text).toContain("10 EUR")
  })
})

describe("bibliographies", () => {
  const citations = Array.from({ length: 6 }, (_, i) => `<li>Author ${i} AB, Other CD. A study of sleep ${i}. Journal of Rest. 2011;94(${i}):247-53.</li>`).join("")

  it("drops a section titled 'References' up to the next heading of its level, in any markup", () => {
    const html = `<html><body><article><h1>Sleep and diet</h1>
      <h2>Why it matters</h2>${prose("sleep", 6)}
      <div class="refs"><h2>References</h2><ol>${citations}</ol><h3>Further notes</h3><p>Cited works were read in full.</p></div>
      <h2>About the clinic</h2><p>The clinic has studied sleep and diet since 1990, in three cities and with many patients.</p>
    </article></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 6 about sleep")
    expect(text).not.toContain("References")
    expect(text).not.toContain("A study of sleep")
    expect(text).not.toContain("Cited works were read")
    expect(text).toContain("The clinic has studied sleep")
  })

  it("takes a bold or bare paragraph that only says 'Sources' or 'Citations' for the title", () => {
    for (const title of ["<p><strong>Citations</strong></p>", "<p>Sources</p>", "<div>Bibliography:</div>"]) {
      const text = extract(`<html><body><article><h1>Sleep and diet</h1>${prose("sleep", 6)}${title}<ul>${citations}</ul></article></body></html>`)
      expect(text).toContain("Paragraph 6 about sleep")
      expect(text).not.toContain("A study of sleep 3")
    }
  })

  it("keeps an API 'Reference' section, a code block that says REFERENCES and prose that mentions references", () => {
    const html = `<html><body><main><h1>useThing</h1>${prose("hooks", 4)}
      <h2>Reference</h2><p>useThing(initial) returns the current thing and a setter for it.</p>
      <pre><code>CREATE TABLE a (id INT,
  user_id INT, FOREIGN KEY(user_id) <span>REFERENCES</span> users (id))</code></pre>
      <p>References to other tables are checked when rows are written.</p>${prose("tables", 3)}</main></body></html>`
    const text = extract(html)
    expect(text).toContain("returns the current thing")
    expect(text).toContain("REFERENCES users")
    expect(text).toContain("References to other tables")
    expect(text).toContain("Paragraph 3 about tables")
  })
})

describe("FAQ widgets", () => {
  it("keeps questions and answers inside a FAQ block whose class also says menu (Webflow tabs)", () => {
    const faq = Array.from({ length: 3 }, (_, i) =>
      `<div class="faq_tabs-menu-link"><h3>Question ${i} about plans?</h3><div class="faq_tabs-mobile"><p>Answer ${i}: every plan includes monitoring, alerts and help from a real person when something goes wrong.</p></div></div>`
    ).join("")
    const html = `<html><body><nav class="menu"><a href="/">Home</a> <a href="/plans">Plans</a></nav><main><h1>Identity protection</h1>${prose("protection", 5)}
      <h2>Frequently Asked Questions</h2><div class="faq_tabs"><div class="faq_tabs-menu">${faq}</div></div></main></body></html>`
    const text = extract(html)
    expect(text).toContain("Question 2 about plans?")
    expect(text).toContain("Answer 2: every plan includes monitoring")
    expect(text).not.toContain("Home Plans")
  })
})

describe("headers of sections", () => {
  const feature = (n: number) =>
    `<section class="feature-${n}"><header class="flex p-6"><h2>Feature ${n} headline</h2><p>Lead ${n}: record your screen and camera together and share a link in seconds.</p></header>
      <p>Detail ${n}: teams use recordings to explain work without another meeting, and viewers reply with comments, emoji and tasks right beside the video.</p></section>`

  it("keeps the header of each section of a landing page, drops the site banner and an entry's byline header", () => {
    const html = `<html><body><header class="site"><a href="/">Logo</a> <a href="/pricing">Pricing</a> <a href="/login">Log in</a></header>
      <main>${[1, 2, 3, 4].map(feature).join("")}
      <section><header><h1>Latest from the blog</h1><time datetime="2025-01-01">January 1, 2025</time> Posted by the team</header></section></main></body></html>`
    const text = extract(html)
    expect(text).toContain("Feature 3 headline")
    expect(text).toContain("Lead 4: record your screen")
    expect(text).toContain("Detail 4: teams use recordings")
    expect(text).not.toContain("Pricing")
    expect(text).not.toContain("Posted by the team")
  })
})

describe("customer reviews on product pages", () => {
  const review = (who: string) =>
    `<div class="review-item"><p>${who} wrote: the neck feels great and the frets were smooth out of the box, but the setup needed a small truss rod tweak.</p></div>`
  const product = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Player II Strat"}</script>`

  it("drops the review widgets of a product page and keeps its description and specifications", () => {
    const html = `<html><head>${product}</head><body><main><h1>Player II Strat</h1>
      <div class="description">${prose("the guitar", 4)}<ul><li>Body: Alder</li><li>Neck: Maple</li><li>Frets: 22</li></ul></div>
      <section id="reviews"><h2>Customer reviews</h2>${review("Ann")}${review("Bo")}${review("Cy")}</section></main></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 4 about the guitar")
    expect(text).toContain("Neck: Maple")
    expect(text).not.toContain("Bo wrote")
  })

  it("keeps review blocks on pages that are not products (a review article is its content)", () => {
    const html = `<html><body><main><h1>Player II Strat, reviewed</h1><div class="review-body">${prose("the guitar", 6)}</div>
      <div class="review">${review("Ann")}</div></main></body></html>`
    const text = extract(html)
    expect(text).toContain("Paragraph 6 about the guitar")
    expect(text).toContain("Ann wrote")
  })
})

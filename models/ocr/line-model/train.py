"""
Trains the line recogniser of architecture.py on printed text lines rendered here, and reports its
character error rate on lines in a font family it never saw. The shipped model,
`conv-tiny.onnx` with its card `conv-tiny.json`, is what packages/ocr/src/LineEngine.ts reads
(issue 17's 1.5 s OCR target; bench/results/ocr-line-engine*.md).

Data, made on the fly (nothing downloaded):
- text: runs of up to 28 characters cut from the reference texts of ../shared/corpus/wcxb-dev (web
  pages' main text, many languages; characters outside the model's set are dropped), single
  words, figures as documents print them (decimals, money, percentages, signs, units), dates,
  words in brackets and quotes, and table rows whose cells are set a wide gap apart (0.6-3 em,
  read as one space);
- fonts: the machine's printed faces, TrueType and OpenType (fc-list: DejaVu, Liberation, the
  URW base 35 clones of Times, Helvetica, Century Schoolbook, Bookman, Avant Garde, Courier,
  Comic Neue; math, symbol, dingbat and handwriting faces left out), with Palatino's clone P052
  held out for the evaluation;
- rendering: 20-64 px type on white or light grey, cut to the ink with a margin, scaled to 32 px
  high, then a random mix of blur, noise, JPEG and a slight rotation (scans and photocopies).

    /path/to/python models/ocr/line-model/train.py --size conv-tiny --minutes 75 --threads 2 \
      --out models/ocr/line-model/conv-tiny

Fine-tuning with handwriting faces and small type (issue 17's handwriting question; the result
is in models/ocr/README.md, "Handwriting", and was not shipped):

    /path/to/python models/ocr/line-model/train.py --size conv-tiny --init models/ocr/line-model/conv-tiny.onnx \
      --hand 0.35 --tiny 0.12 --lr 7e-4 --warmup 100 --minutes 55 --threads 2 --out /tmp/conv-tiny-hand

Writes `<out>.onnx` (the model, CTC log-probabilities, dynamic batch and width) and `<out>.json`
(character set, input convention, training log, evaluation) next to it, and `<out>.partial.onnx`
every `--checkpoint-minutes`. The learning rate warms up for 200 steps, then follows a cosine
over the time budget.

On the 2 shared cores the LSTM sizes took 2.1 s a step of 32 lines (the LSTMs' backward pass is
most of it); the convolutional head (`conv-*` sizes) takes about 0.3 s with two threads, so a
75-minute run is some 12,000 steps.
"""
import argparse
import glob
import io
import json
import math
import os
import random
import subprocess
import time

import numpy as np
import torch
from PIL import Image, ImageDraw, ImageFilter, ImageFont
from torch import nn

from architecture import CHARSET, CONV_SIZES, SIZES, build

HEIGHT = 32
# Longer lines teach nothing new and cost the LSTM steps: a CPU run trains on short ones.
MAX_CHARS = 28
INDEX = {c: i + 1 for i, c in enumerate(CHARSET)}  # 0 is the CTC blank


# Handwriting faces (Debian's fonts-* packages; bench/results/ocr-handwriting.md) are kept out of the
# printed set; `--hand` mixes them in with a hand renderer, holding out HAND_HELD_OUT's families.
HANDWRITING = (
    "breip", "dkghandwriting", "humor sans", "kristi", "rufscript", "femkeklaver", "dancing", "because we", "z003",
    "ecolier", "purisa", "kaushan", "klee", "joscelyn",
)
# Hands never trained on, one of each kind the bench has (print, script, cursive), chosen before any run.
HAND_HELD_OUT = ("DkgHandwriting", "Because We Learn", "Rufscript", "Kristi")
# Not readable as modern handwriting (a secretary hand) or not a Latin hand.
HAND_SKIP = ("joscelyn", "z003")
# Faces that are not text: dingbats and symbol sets.
NOT_TEXT = ("math", "symbol", "emoji", "cjk", "dingbat", "d050000l", "opensymbol")
# The family held out for the evaluation: a serif design (Palatino's) the model never sees.
HELD_OUT = ("P052",)


def fonts():
    out = subprocess.run(["fc-list", ":", "file", "family"], capture_output=True, text=True).stdout.splitlines()
    found = {}
    for line in out:
        path, _, family = line.partition(":")
        path = path.strip()
        family = family.strip().split(",")[0]
        if not path.endswith((".ttf", ".otf")):
            continue
        if any(k in (path + family).lower() for k in NOT_TEXT + HANDWRITING):
            continue
        found.setdefault(family, []).append(path)
    families = sorted(found)
    held = [f for f in families if f in HELD_OUT]
    train = [p for f in families if f not in held for p in found[f]]
    test = [p for f in held for p in found[f]]
    return train, test, held


def hand_fonts():
    """The handwriting faces as (path, characters it draws), split into training and held-out families."""
    from fontTools.ttLib import TTFont

    out = subprocess.run(["fc-list", ":", "file", "family"], capture_output=True, text=True).stdout.splitlines()
    train, test = [], []
    for line in sorted(out):
        path, _, family = line.partition(":")
        path, family = path.strip(), family.strip().split(",")[0]
        lowered = (path + family).lower()
        if not path.endswith((".ttf", ".otf")) or not any(k in lowered for k in HANDWRITING) or any(k in lowered for k in HAND_SKIP):
            continue
        cmap = TTFont(path, lazy=True).getBestCmap() or {}
        covered = frozenset(c for c in CHARSET if ord(c) in cmap) | {" ", "\t"}
        if sum(c.isalpha() for c in covered) < 52:
            continue  # not a Latin hand (no full upper and lower case)
        (test if family in HAND_HELD_OUT else train).append((path, covered, capitals_only(path)))
    return train, test


def capitals_only(path):
    """Whether a face draws its lower case as (small) capitals: its a, e, g, r, t scaled to their ink match A, E, G, R, T."""
    font = ImageFont.truetype(path, 64)

    def shape(c):
        image = Image.new("L", (128, 128), 0)
        ImageDraw.Draw(image).text((20, 20), c, font=font, fill=255)
        box = image.getbbox()
        return np.asarray(image.crop(box).resize((24, 24), Image.BILINEAR)) > 96 if box else np.zeros((24, 24), bool)

    same = 0
    for lower in "aegrt":
        a, b = shape(lower), shape(lower.upper())
        same += (a & b).sum() / max(1, (a | b).sum()) > 0.6
    return same >= 4


def texts():
    pool = []
    for path in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "../../../../shared/corpus/wcxb-dev/ground-truth/*.json"))):
        with open(path) as f:
            truth = json.load(f).get("ground_truth", {})
        text = truth.get("main_content") or truth.get("mainContent") or ""
        text = " ".join("".join(c for c in text if c in INDEX or c.isspace()).split())
        if len(text) > 40:
            pool.append(text)
    return pool


def sample_text(rng, pool):
    text = sample_any(rng, pool)[:MAX_CHARS].strip().replace("−", "-")
    text = "".join(c for c in text if c in INDEX or c == "\t")
    return text.strip() or "a"


def number(rng):
    """A figure as documents print them: counts, decimals, money, percentages, signs and units."""
    kind = rng.random()
    if kind < 0.3:
        text = f"{rng.randint(0, 99999):,}" if rng.random() < 0.5 else str(rng.randint(0, 9999))
    elif kind < 0.7:
        text = f"{rng.uniform(0, 10 ** rng.randint(1, 4)):.{rng.randint(1, 3)}f}"
    else:
        text = f"{rng.uniform(0, 100):.1f}%"
    if rng.random() < 0.25:
        text = rng.choice(["+", "-", "−", "±"]) + text
    if rng.random() < 0.15:
        text = rng.choice(["$", "€", "£"]) + text
    if rng.random() < 0.15:
        text = f"({text})"
    if rng.random() < 0.1:
        text += rng.choice([" kg", " m", " km", " mg/l", " ms", "x", " pp"])
    return text


def words(rng, pool, n):
    text = rng.choice(pool).split(" ")
    start = rng.randint(0, max(0, len(text) - n))
    return " ".join(text[start:start + n])


def sample_any(rng, pool):
    """A line's text; a tab marks a wide gap (a table's column gap), which the model must read as one space."""
    kind = rng.random()
    if kind < 0.12:
        parts = [number(rng) for _ in range(rng.randint(1, 5))]
        return rng.choice([" ", " ", ", ", "\t"]).join(parts)
    if kind < 0.22:
        # A table row: a label and figures, or a few words, in cells.
        cells = [words(rng, pool, rng.randint(1, 3))] + [number(rng) if rng.random() < 0.7 else words(rng, pool, 1) for _ in range(rng.randint(1, 4))]
        return "\t".join(cells)
    if kind < 0.26:
        return f"{rng.randint(1, 28)}/{rng.randint(1, 12)}/{rng.randint(1950, 2030)} " + rng.choice(["Section", "Table", "Fig.", "p."]) + f" {rng.randint(1, 400)}"
    if kind < 0.32:
        # Words in brackets and with figures glued to punctuation, as running text has them.
        left, right = rng.choice([("(", ")"), ("[", "]"), ("“", "”"), ('"', '"'), ("‘", "’")])
        return words(rng, pool, rng.randint(1, 3)) + f" {left}{rng.choice([number(rng), words(rng, pool, rng.randint(1, 2))])}{right}" + rng.choice(["", ".", ",", ";", ":"]) + " " + words(rng, pool, rng.randint(0, 2))
    if kind < 0.36:
        return words(rng, pool, 1)
    text = rng.choice(pool)
    length = rng.randint(8, MAX_CHARS)
    start = rng.randint(0, max(0, len(text) - length))
    line = text[start:start + length].strip()
    return line if line else "a"


def render(rng, text, font_paths, tiny=0.0):
    # `tiny`: the share of lines set at 9-19 px, as a 150-dpi scan's body text is (x-height about 5-9 px).
    size = rng.randint(9, 19) if rng.random() < tiny else rng.randint(20, 64)
    font = ImageFont.truetype(rng.choice(font_paths), size)
    pieces = text.split("\t")
    gaps = [round(size * rng.uniform(0.6, 3.0)) for _ in pieces[1:]]
    boxes = [font.getbbox(piece) for piece in pieces]
    width = max(1, sum(b[2] - b[0] for b in boxes) + sum(gaps))
    pad = rng.randint(2, max(3, size // 4))
    background = rng.randint(215, 255)
    ink = rng.randint(0, 70)
    image = Image.new("L", (width + 2 * pad, size + 2 * pad + size // 3), background)
    draw = ImageDraw.Draw(image)
    x = pad
    for k, (piece, box) in enumerate(zip(pieces, boxes)):
        draw.text((x - box[0], pad), piece, font=font, fill=ink)
        x += box[2] - box[0] + (gaps[k] if k < len(gaps) else 0)
    if rng.random() < 0.3:
        image = image.rotate(rng.uniform(-1.2, 1.2), resample=Image.BILINEAR, expand=False, fillcolor=background)
    return finish(rng, image, size, pad, background)


def render_hand(rng, text, fonts_covered):
    """
    A line as a hand writes it: each word its own size (±7%), baseline (±6%) and tilt (±2°), gaps
    of 0.3-0.7 em, the line slanted −12° to +12° and the stroke sometimes thickened or thinned,
    then the scanner damage of `finish`. The text keeps only the characters the face draws.
    """
    path, covered, capitals = rng.choice(fonts_covered)
    text = "".join(c for c in text.replace("\t", " ") if c in covered).strip() or "a"
    if capitals:
        text = text.upper()  # the label is what the page shows
    size = rng.randint(24, 64)
    background = rng.randint(215, 255)
    ink = rng.randint(0, 90)
    pieces = []
    for word in text.split(" "):
        if not word:
            continue
        font = ImageFont.truetype(path, max(8, round(size * rng.uniform(0.93, 1.07))))
        box = font.getbbox(word)
        piece = Image.new("L", (max(1, box[2] - box[0]) + 4, size * 2), background)
        ImageDraw.Draw(piece).text((2 - box[0], size // 2), word, font=font, fill=ink)
        piece = piece.rotate(rng.uniform(-2, 2), resample=Image.BILINEAR, expand=True, fillcolor=background)
        pieces.append((piece, round(rng.uniform(-0.06, 0.06) * size)))
    gaps = [round(size * rng.uniform(0.3, 0.7)) for _ in pieces[1:]]
    pad = rng.randint(2, max(3, size // 4))
    width = sum(p.width for p, _ in pieces) + sum(gaps) + 2 * pad
    height = max(p.height for p, _ in pieces) + size // 2 + 2 * pad
    image = Image.new("L", (width, height), background)
    x = pad
    for k, (piece, dy) in enumerate(pieces):
        mask = Image.eval(piece, lambda v: 255 if v < background - 30 else 0)
        image.paste(piece, (x, pad + size // 4 + dy), mask)
        x += piece.width + (gaps[k] if k < len(gaps) else 0)
    shear = math.tan(math.radians(rng.uniform(-12, 12)))
    grow = round(abs(shear) * height)
    image = image.transform((width + grow, height), Image.AFFINE, (1, shear, -grow if shear > 0 else 0, 0, 1, 0), resample=Image.BILINEAR, fillcolor=background)
    stroke = rng.random()
    if stroke < 0.2:
        image = image.filter(ImageFilter.MinFilter(3))  # a broader pen
    elif stroke < 0.3 and size > 36:
        image = image.filter(ImageFilter.MaxFilter(3))  # a finer one
    return finish(rng, image, size, pad, background), text


def finish(rng, image, size, pad, background):
    """Cut to the ink with a margin, blur, scale to HEIGHT, then noise and JPEG: the scan's damage."""
    array = np.asarray(image)
    rows = np.where(array.min(axis=1) < background - 40)[0]
    if len(rows) > 0:
        top_row, bottom_row = max(0, rows[0] - pad), min(array.shape[0], rows[-1] + pad + 1)
        image = image.crop((0, top_row, image.width, bottom_row))
    if rng.random() < 0.4:
        image = image.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.3) * size / 40))
    scale = HEIGHT / image.height
    image = image.resize((max(8, round(image.width * scale * rng.uniform(0.9, 1.1))), HEIGHT), Image.BILINEAR)
    array = np.asarray(image).astype(np.float32)
    if rng.random() < 0.4:
        array = array + np.random.default_rng(rng.randint(0, 2**31)).normal(0, rng.uniform(3, 45) * min(1.0, size / 40), array.shape)
    array = np.clip(array, 0, 255)
    if rng.random() < 0.3:
        buffer = io.BytesIO()
        Image.fromarray(array.astype(np.uint8)).save(buffer, "JPEG", quality=rng.randint(25, 80))
        array = np.asarray(Image.open(buffer)).astype(np.float32)
    return 1.0 - array / 255.0  # ink 1, paper 0: the input convention


def batch_of(rng, pool, font_paths, n, hand_fonts=(), hand=0.0, tiny=0.0):
    """`n` lines: a `hand` share in the handwriting faces, the rest printed (a `tiny` share of those small)."""
    items = []
    for _ in range(n):
        text = sample_text(rng, pool)
        if hand_fonts and rng.random() < hand:
            image, text = render_hand(rng, text, hand_fonts)
            items.append((text, image))
        else:
            items.append((text, render(rng, text, font_paths, tiny)))
    width = max(a.shape[1] for _, a in items)
    width += (-width) % 4
    images = np.zeros((n, 1, HEIGHT, width), np.float32)
    for i, (_, a) in enumerate(items):
        images[i, 0, :, : a.shape[1]] = a
    targets = [torch.tensor([INDEX[c] for c in t.replace("\t", " ")], dtype=torch.long) for t, _ in items]
    widths = torch.tensor([a.shape[1] // 4 for _, a in items], dtype=torch.long)
    return torch.from_numpy(images), targets, widths, [t.replace("\t", " ") for t, _ in items]


def decode(logprobs):
    best = logprobs.argmax(-1).tolist()
    out, last = [], 0
    for k in best:
        if k != last and k != 0:
            out.append(CHARSET[k - 1])
        last = k
    return "".join(out)


def edit_distance(a, b):
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def evaluate(model, rng, pool, font_paths, lines, hand_fonts=(), hand=0.0):
    model.eval()
    errors = chars = 0
    with torch.no_grad():
        for _ in range(lines // 32):
            images, _, widths, truth = batch_of(rng, pool, font_paths, 32, hand_fonts, hand)
            out = model(images)
            for i, text in enumerate(truth):
                guess = decode(out[i, : widths[i]])
                errors += edit_distance(guess, text)
                chars += len(text)
    return errors / max(1, chars)


def load_fused(model, path):
    """
    Starts from an exported model. The export folded each BatchNorm into the convolution before it,
    so the convolutions take the folded weights and the BatchNorms become identities (mean 0,
    variance 1 − eps, scale 1, shift 0) that `train_mode` keeps frozen.
    """
    import onnx
    from onnx import numpy_helper

    weights = [numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer]
    named = {t.name: numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}
    convs = [m for m in model.modules() if isinstance(m, (nn.Conv1d, nn.Conv2d)) and m is not model.head]
    folded = [w for w in weights if w.ndim > 1 and w.shape[0] != len(CHARSET) + 1]
    biases = [w for w in weights if w.ndim == 1 and w.shape[0] != len(CHARSET) + 1]
    assert len(convs) == len(folded) == len(biases), (len(convs), len(folded), len(biases))
    with torch.no_grad():
        for conv, w, b in zip(convs, folded, biases):
            conv.weight.copy_(torch.from_numpy(w))
            conv.bias.copy_(torch.from_numpy(b))
        model.head.weight.copy_(torch.from_numpy(named["head.weight"]))
        model.head.bias.copy_(torch.from_numpy(named["head.bias"]))
        for bn in (m for m in model.modules() if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d))):
            bn.running_mean.zero_()
            bn.running_var.fill_(1 - bn.eps)
            bn.weight.fill_(1)
            bn.bias.zero_()


def train_mode(model, frozen_norms):
    model.train()
    if frozen_norms:
        for bn in (m for m in model.modules() if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d))):
            bn.eval()


def export(model, path):
    model.eval()
    torch.onnx.export(
        model, (torch.rand(2, 1, HEIGHT, 400),), path, input_names=["image"], output_names=["logprobs"],
        dynamic_axes={"image": {0: "batch", 3: "width"}, "logprobs": {0: "batch", 1: "steps"}}, opset_version=17, dynamo=False
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="conv-small", choices=sorted(SIZES) + sorted(CONV_SIZES))
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--checkpoint-minutes", type=float, default=10)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--out", required=True)
    parser.add_argument("--init", help="an exported .onnx of the same size to start from (fine-tuning; its BatchNorms stay frozen)")
    parser.add_argument("--hand", type=float, default=0.0, help="share of lines in the handwriting faces")
    parser.add_argument("--tiny", type=float, default=0.0, help="share of printed lines set at 9-19 px")
    parser.add_argument("--warmup", type=int, default=200)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    train_fonts, test_fonts, held = fonts()
    hand_train, hand_test = hand_fonts() if args.hand > 0 else ([], [])
    pool = texts()
    model = build(args.size, len(CHARSET) + 1)
    if args.init:
        load_fused(model, args.init)
    train_mode(model, bool(args.init))
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    log = []
    started = time.time()
    step = 0
    last_checkpoint = started
    while time.time() - started < args.minutes * 60:
        # A short warm-up, then a cosine decay over the time budget (the run is bounded by minutes, not steps).
        done = (time.time() - started) / (args.minutes * 60)
        scale = min(1.0, (step + 1) / args.warmup) * 0.5 * (1 + math.cos(math.pi * min(1.0, done)))
        for group in optimiser.param_groups:
            group["lr"] = args.lr * max(0.01, scale)
        images, targets, widths, _ = batch_of(rng, pool, train_fonts, args.batch, hand_train, args.hand, args.tiny)
        logprobs = model(images).permute(1, 0, 2)  # [steps, batch, classes]
        loss = ctc(logprobs, torch.cat(targets), widths, torch.tensor([len(t) for t in targets]))
        optimiser.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimiser.step()
        step += 1
        if step % 250 == 0:
            cer = evaluate(model, random.Random(1000 + step), pool, train_fonts, 64)
            entry = {"step": step, "minutes": round((time.time() - started) / 60, 1), "loss": round(loss.item(), 4), "cer_train_fonts": round(cer, 4)}
            if hand_test:
                entry["cer_held_out_hands"] = round(evaluate(model, random.Random(2000 + step), pool, train_fonts, 64, hand_test, 1.0), 4)
            train_mode(model, bool(args.init))
            log.append(entry)
            print(json.dumps(log[-1]), flush=True)
        if time.time() - last_checkpoint > args.checkpoint_minutes * 60:
            last_checkpoint = time.time()
            export(model, args.out + ".partial.onnx")
            train_mode(model, bool(args.init))
    model.eval()
    held_out = evaluate(model, random.Random(424242), pool, test_fonts, 512)
    seen = evaluate(model, random.Random(434343), pool, train_fonts, 512)
    hands = {
        "cer_held_out_hands": round(evaluate(model, random.Random(444444), pool, train_fonts, 512, hand_test, 1.0), 4),
        "cer_training_hands": round(evaluate(model, random.Random(454545), pool, train_fonts, 512, hand_train, 1.0), 4),
        "hands_train": sorted({os.path.basename(p) for p, _, _ in hand_train}),
        "hands_held_out": sorted({os.path.basename(p) for p, _, _ in hand_test}),
    } if hand_test else {}
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    export(model, args.out + ".onnx")
    card = {
        "size": args.size,
        "params": sum(p.numel() for p in model.parameters()),
        "steps": step,
        "batch": args.batch,
        "minutes": args.minutes,
        "threads": args.threads,
        "input": "grey line image scaled to 32 px high, ink 1.0 and paper 0.0, width padded to a multiple of 4; output [batch, width/4, classes] CTC log-probabilities, blank 0",
        "charset": "".join(CHARSET),
        "fonts_train": len(train_fonts),
        "fonts_held_out": len(test_fonts),
        "families_held_out": held,
        "cer_held_out_fonts": round(held_out, 4),
        "cer_training_fonts": round(seen, 4),
        **({"init": os.path.basename(args.init)} if args.init else {}),
        "hand_share": args.hand,
        "tiny_share": args.tiny,
        **hands,
        "log": log,
    }
    with open(args.out + ".json", "w") as f:
        json.dump(card, f, indent=1)
    print(json.dumps({k: card[k] for k in ("steps", "cer_held_out_fonts", "cer_training_fonts", "cer_held_out_hands", "cer_training_hands") if k in card}))


if __name__ == "__main__":
    main()

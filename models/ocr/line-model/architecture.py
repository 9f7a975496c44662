"""
A candidate line recogniser for issue 17's OCR target (1.5 CPU s per dense 300-dpi A4 page), sized
before anything is trained: a CRNN (convolutions down to one column of features per 4 pixels of
width, two bidirectional LSTM layers, a CTC head over printable text). This script builds it with
random weights and exports it to ONNX (dynamic batch and width) so that bench/ocr/lineModelCost.ts
can time what reading a page's lines would cost on onnxruntime-node, one thread. It trains
nothing: the figures are the cost a trained model of this size would have, not its accuracy.

    /path/to/python models/ocr/line-model/architecture.py --out .tmp/ocr-line/crnn-{size}.onnx

Needs torch (CPU) and onnx; inference stays in TypeScript.
"""
import argparse
import json
import os

import torch
from torch import nn

# Printable ASCII, common Latin-1 letters and typographic punctuation, plus the CTC blank.
CHARSET = [chr(c) for c in range(32, 127)] + list("àáâäçèéêëìíîïñòóôöùúûüßÀÁÂÄÇÈÉÊËÌÍÎÏÑÒÓÔÖÙÚÛÜ–—‘’“”•…€£°±×")

SIZES = {
    # name: (channels of the four conv stages, LSTM hidden size)
    "tiny": ((16, 32, 64, 96), 64),
    "small": ((32, 64, 96, 128), 96),
    "base": ((32, 64, 128, 192), 128),
}

# The convolutional sequence head: (channels of the four conv stages, width of the 1-D head, dilations of its residual blocks).
CONV_SIZES = {
    "conv-tiny": ((16, 32, 64, 96), 128, (1, 2, 4)),
    "conv-small": ((32, 64, 96, 128), 192, (1, 2, 4, 1)),
}


class Crnn(nn.Module):
    def __init__(self, channels, hidden, classes):
        super().__init__()
        c1, c2, c3, c4 = channels

        def block(cin, cout, pool):
            return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True), nn.MaxPool2d(pool, pool)]

        # 32 x W -> 16 x W/2 -> 8 x W/4 -> 4 x W/4 -> 2 x W/4
        self.features = nn.Sequential(
            *block(1, c1, (2, 2)), *block(c1, c2, (2, 2)), *block(c2, c3, (2, 1)), *block(c3, c4, (2, 1))
        )
        self.rnn = nn.LSTM(c4 * 2, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.head = nn.Linear(hidden * 2, classes)

    def forward(self, x):  # x: [batch, 1, 32, width], 0..1
        f = self.features(x)  # [b, c, 2, w/4]
        b, c, h, w = f.shape
        f = f.permute(0, 3, 1, 2).reshape(b, w, c * h)
        out, _ = self.rnn(f)
        return self.head(out).log_softmax(-1)  # [b, w/4, classes]


class ConvSeq(nn.Module):
    """
    The same image stages, then a 1-D convolutional sequence head in place of the LSTMs: a 1x3
    convolution and residual dilated 1x3 convolutions over the width (receptive field about 30
    steps, 120 px, two or three words at 32 px high), then a 1x1 classifier. Trains several times
    faster than the LSTMs on a CPU, reads lines of any length the same way, and is built only from
    operators onnxruntime runs fast on one thread.
    """

    def __init__(self, channels, width, dilations, classes):
        super().__init__()
        c1, c2, c3, c4 = channels

        def block(cin, cout, pool):
            return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True), nn.MaxPool2d(pool, pool)]

        self.features = nn.Sequential(
            *block(1, c1, (2, 2)), *block(c1, c2, (2, 2)), *block(c2, c3, (2, 1)), *block(c3, c4, (2, 1))
        )
        self.entry = nn.Sequential(nn.Conv1d(c4 * 2, width, 3, padding=1), nn.BatchNorm1d(width), nn.ReLU(inplace=True))
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Conv1d(width, width, 3, padding=d, dilation=d), nn.BatchNorm1d(width), nn.ReLU(inplace=True)) for d in dilations
        )
        self.head = nn.Conv1d(width, classes, 1)

    def forward(self, x):  # x: [batch, 1, 32, width], 0..1
        f = self.features(x)  # [b, c, 2, w/4]
        b, c, h, w = f.shape
        f = self.entry(f.reshape(b, c * h, w))
        for block in self.blocks:
            f = f + block(f)
        return self.head(f).permute(0, 2, 1).log_softmax(-1)  # [b, w/4, classes]


def build(size, classes):
    if size in CONV_SIZES:
        channels, width, dilations = CONV_SIZES[size]
        return ConvSeq(channels, width, dilations, classes)
    channels, hidden = SIZES[size]
    return Crnn(channels, hidden, classes)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="base", choices=sorted(SIZES) + sorted(CONV_SIZES))
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    model = build(args.size, len(CHARSET) + 1).eval()
    params = sum(p.numel() for p in model.parameters())
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    example = torch.rand(2, 1, 32, 800)
    torch.onnx.export(
        model, (example,), args.out, input_names=["image"], output_names=["logprobs"],
        dynamic_axes={"image": {0: "batch", 3: "width"}, "logprobs": {0: "batch", 1: "steps"}}, opset_version=17, dynamo=False
    )
    print(json.dumps({"size": args.size, "params": params, "classes": len(CHARSET) + 1, "out": args.out}))


if __name__ == "__main__":
    main()

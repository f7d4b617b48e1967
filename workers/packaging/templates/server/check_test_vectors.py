"""Check this package against its test vectors (the platform's answers when it was built).

    python check_test_vectors.py                         # the predictor in this process
    SAMPAN_SERVER_API_KEY=... python check_test_vectors.py --url http://127.0.0.1:8080
                                                         # a running server, over HTTP

Scores must match within rtol=1e-4, atol=1e-5 and the top class must be the same. Prints one JSON
line with the result; exits 1 when a vector differs.
"""

import argparse
import base64
import json
import os
import sys
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
RTOL, ATOL = 1e-4, 1e-5
BATCH = 16


def answers_in_process(files, classes):
    from workers.image_classification.preprocessing import open_image
    from workers.serving.predictors import load_predictor

    predictor = load_predictor(ROOT)
    return predictor.predict([open_image(path) for path in files], len(classes))


def answers_over_http(files, classes, url, key):
    answers = []
    for start in range(0, len(files), BATCH):
        body = json.dumps({"instances": [{"image": base64.b64encode(Path(p).read_bytes()).decode()}
                                         for p in files[start:start + BATCH]], "top_k": len(classes)}).encode()
        request = urllib.request.Request(url.rstrip("/") + "/predict", data=body, method="POST", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {key}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            answers.extend(p["top_k"] for p in json.load(response)["predictions"])
    return answers


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--expected", default=str(ROOT / "test_vectors" / "expected.json"))
    parser.add_argument("--out", help="write the answers (scores by class index) to this JSON file")
    args = parser.parse_args()
    expected = json.loads(Path(args.expected).read_text())
    classes = expected["classes"]
    base = Path(args.expected).parent
    files = [str(base / vector["file"]) for vector in expected["vectors"]]
    if args.url:
        ranked = answers_over_http(files, classes, args.url, os.environ.get("SAMPAN_SERVER_API_KEY", ""))
    else:
        ranked = answers_in_process(files, classes)
    scores = np.zeros((len(files), len(classes)))
    for row, answer in enumerate(ranked):
        for entry in answer:
            scores[row, entry["index"]] = entry["score"]
    wanted = np.array([vector["scores"] for vector in expected["vectors"]])
    same_top = [answer[0]["index"] == vector["top_k"][0]["index"] for answer, vector in zip(ranked, expected["vectors"], strict=True)]
    close = bool(np.allclose(scores, wanted, rtol=RTOL, atol=ATOL))
    result = {"vectors": len(files), "allclose": close, "max_abs_diff": float(np.max(np.abs(scores - wanted))) if files else 0.0,
              "top1_agreement": sum(same_top) / len(files) if files else 1.0}
    if args.out:
        Path(args.out).write_text(json.dumps({"scores": scores.tolist(), "top_k": ranked}))
    print(json.dumps(result))
    return 0 if close and all(same_top) else 1


if __name__ == "__main__":
    sys.exit(main())

import sys

from helpers import load_output

doc = load_output(sys.argv[1])
expected = sum(item["qty"] * item["price"] for item in doc["items"])
assert abs(doc["total"] - expected) < 0.005, f"total {doc['total']} != sum of items {expected}"

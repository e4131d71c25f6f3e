"""Checks the shape of output.json; helpers.py sits beside this file and imports as usual."""
import sys

from helpers import load_output

doc = load_output(sys.argv[1])
assert isinstance(doc.get("invoice_no"), str), "invoice_no missing"
assert isinstance(doc.get("total"), (int, float)), "total is not a number"
assert doc.get("items"), "no items"
print(f"invoice {doc['invoice_no']} has {len(doc['items'])} items")

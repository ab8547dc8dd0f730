"""Digests the official weave client computes locally vs what the server answers, for
test/clients/client-digests.test.ts.

Usage:
  digest_values.py publish PROJECT   publish VALUES (objects and one table) and report both digests
  digest_values.py fastpath PROJECT  the same with WEAVE_ENABLE_CLIENT_SIDE_DIGESTS=true (the client
                                     sends its digest as expected_digest and builds refs from it),
                                     then a Dataset (its value holds a table ref)
  digest_values.py reference FILE    digests the client's own helpers compute for the JSON request
                                     bodies in FILE ({"objects": [body, ...], "tables": [body, ...]}),
                                     i.e. what the reference server would answer for those bytes

The local digests come from weave.trace.serialization.digest (the module the client shares with the
reference server: compute_object_digest, compute_row_digest, compute_table_digest).
The last stdout line is the JSON result.
"""

import json
import os
import sys

import weave
from weave.trace.serialization.digest import (
    compute_object_digest,
    compute_row_digest,
    compute_table_digest,
)

# name -> value; every value is published as an object, every dict value is also a table row
VALUES = {
    "float_one": {"x": 1.0},
    "int_one": {"x": 1},
    "float_tenth": {"x": 0.1},
    "float_1e300": {"x": 1e300},
    "float_neg_zero": {"x": -0.0},
    "int_zero": {"x": 0},
    "float_small_exp": {"a": 1e-05, "b": 2.5e-07, "c": 0.0001},
    "float_large_exp": {
        "d": 1e16, "e": 9999999999999998.0, "f": 1.2345678901234567e-300, "g": 5e-324,
        "h": 1.7976931348623157e308, "i": 1e21, "j": 123456.789,
    },
    "float_thirds": {"x": 1 / 3, "y": -2 / 3, "z": 100.0},
    "int_2p53_plus_1": {"x": 2**53 + 1},
    "int_huge": {"x": 12345678901234567890123456789, "neg": -(2**64)},
    "emoji_non_bmp": {"s": "\U0001F600\U0001F389 \U0001D11E"},
    "combining": {"s": "e\u0301 n\u0303 a\u030a"},
    "rtl": {"he": "\u05e9\u05dc\u05d5\u05dd", "ar": "\u0645\u0631\u062d\u0628\u0627", "marks": "\u200fabc\u200e"},
    # code point order Z, z, é, U+E000, 😀 (UTF-16 order would put 😀 before U+E000)
    "unicode_keys": {"\U0001F600": 1, "\ue000": 2, "\u00e9": 3, "z": 4, "Z": 5},
    "ascii_escapes": {"s": "quote\" backslash\\ slash/ nl\n tab\t cr\r bs\b ff\f nul\u0000 us\u001f"},
    "del_nbsp": {"s": "del\u007f nbsp\u00a0"},
    "nested": {
        "z": {"b": [1, {"d": None, "c": [True, False, 1.5]}], "a": {"deep": {"deeper": {"deepest": [[], [{}]]}}}},
        "a": [[1, 2], [3.0, "4"]],
    },
    "nulls_bools_empties": {"n": None, "t": True, "f": False, "e": {}, "l": [], "s": ""},
    # repr boundaries: fixed vs exponent form at 1e-4 and 1e16, shortest round-trip digits
    "float_boundaries": {
        "a": 1e-4, "b": 9.999999999999999e-05, "c": 9.999999999999998e15, "d": 123456789012345678.0,
        "e": 0.1 + 0.2, "f": 2.2250738585072014e-308, "g": -1.5e-10, "h": 1e22, "i": 1e23, "j": 2.0**63,
    },
    "int_10e400": {"x": 10**400, "y": -(10**40)},
    # keys a JS object could mistake for its own machinery
    "js_special_keys": {"__proto__": 1, "constructor": 2, "toString": 3, "": 4, "nested": {"__proto__": {"x": 1}}},
    "unicode_separators": {"s": "a\u2028b\u2029c\ufeffd\uffff\U0010ffff"},
    "key_code_units": {"a": 1, "B": 2, "_": 3, "a\u0000": 4, "\u007f": 5, "\u0080": 6, "aa": 7, "a ": 8},
    "deep": json.loads("[" * 20 + '{"k": [1.0]}' + "]" * 20),
    "empty_object": {},
    "empty_list": [],
    "null": None,
    "bool_true": True,
    "bool_false": False,
    "bare_float": 1.0,
    "bare_big_int": 2**64 + 1,
    "bare_string": "h\u00e9llo \U0001F600",
    "list_mixed": [1, 1.0, -0.0, None, True, "x", [], {}],
}


def digest_of(response) -> str:
    return response["digest"] if isinstance(response, dict) else response.digest


def publish(project: str) -> dict:
    client = weave.init(project)
    objects = {}
    for name, value in VALUES.items():
        local = compute_object_digest(value)
        # the client's publish path (server digest comes back in the ref)
        ref = weave.publish(value, name=f"dv-{name}")
        # the client's trace-server binding, with the local digest as expected_digest (409 if different)
        res = client.server.obj_create(
            {"obj": {"project_id": client.project_id, "object_id": f"dx-{name}", "val": value, "expected_digest": local}}
        )
        objects[name] = {"local": local, "publish": ref.digest, "obj_create": digest_of(res)}

    rows = [v for v in VALUES.values() if isinstance(v, dict)]
    local_rows = [compute_row_digest(r) for r in rows]
    local_table = compute_table_digest(local_rows)
    res = client.server.table_create(
        {"table": {"project_id": client.project_id, "rows": rows, "expected_digest": local_table}}
    )
    row_digests = res["row_digests"] if isinstance(res, dict) else res.row_digests
    table = {
        "row_names": [n for n, v in VALUES.items() if isinstance(v, dict)],
        "local_rows": local_rows,
        "local_table": local_table,
        "server_rows": list(row_digests),
        "server_table": digest_of(res),
    }

    # values the client cannot send: json.dumps(allow_nan=False) in its HTTP layer
    unsendable = {}
    for name, value in {"nan": {"x": float("nan")}, "inf": {"x": float("inf")}}.items():
        try:
            client.server.obj_create({"obj": {"project_id": client.project_id, "object_id": f"dn-{name}", "val": value}})
            unsendable[name] = "sent"
        except Exception as e:  # noqa: BLE001 - reporting which error the client raises
            unsendable[name] = f"{type(e).__name__}: {e}"
    client.flush()
    return {"objects": objects, "table": table, "unsendable": unsendable}


def fastpath(project: str) -> dict:
    # settings are read at call time, so this applies to the client made below
    os.environ["WEAVE_ENABLE_CLIENT_SIDE_DIGESTS"] = "true"
    client = weave.init(project)
    resolver = client.project_id_resolver
    internal_id = resolver.get_internal_project_id(client.project_id)
    objects = {}
    for name, value in VALUES.items():
        ref = weave.publish(value, name=f"fp-{name}")
        objects[name] = {"local": compute_object_digest(value), "publish": ref.digest}
    # a 409 on any expected_digest disables the resolver for the session
    disabled_after_values = resolver.is_disabled
    dataset = weave.Dataset(name="fp-dataset", rows=[{"q": "caf\u00e9", "a": 1.0}, {"q": "x", "a": 2**60}])
    ds_ref = weave.publish(dataset, name="fp-dataset")
    ds_digest = ds_ref.digest
    disabled_after_dataset = resolver.is_disabled
    client.flush()
    return {
        "internal_project_id": internal_id,
        "objects": objects,
        "disabled_after_values": disabled_after_values,
        "dataset_digest": ds_digest,
        "disabled_after_dataset": disabled_after_dataset,
    }


def reference(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        bodies = json.load(f)
    objects = [compute_object_digest(json.loads(body)["obj"]["val"]) for body in bodies["objects"]]
    tables = []
    for body in bodies["tables"]:
        rows = [compute_row_digest(r) for r in json.loads(body)["table"]["rows"]]
        tables.append({"rows": rows, "table": compute_table_digest(rows)})
    return {"objects": objects, "tables": tables}


def main() -> None:
    mode, arg = sys.argv[1], sys.argv[2]
    result = {"publish": publish, "fastpath": fastpath, "reference": reference}[mode](arg)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A chessdb client written from chessdb.cn's API page (cloudbook_api_en.html),
not from our code: it calls the server as any script calls chessdb.cn and checks
the reply shapes the page documents. Usage: chessdb_client.py BASE_URL"""

import json
import sys
import urllib.error
import urllib.parse
import urllib.request

BASE = sys.argv[1]
START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"


def call(action, board, method="GET", **options):
    query = urllib.parse.urlencode({"action": action, "board": board, **options})
    if method == "GET":
        request = urllib.request.Request(BASE + "?" + query)
    else:
        request = urllib.request.Request(BASE, data=query.encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def text(reply):
    status, body = reply
    assert body.endswith("\0"), repr(body)
    return status, body.rstrip("\0")


# queryall: moves separated by "|", fields by ",": move, score, rank, note, winrate.
status, body = text(call("queryall", START))
assert status == 200, (status, body)
moves = [dict(field.split(":", 1) for field in entry.split(",")) for entry in body.split("|")]
assert len(moves) >= 5 and all(m["rank"] in "012" for m in moves), body
assert all(int(m["score"]) >= int(n["score"]) for m, n in zip(moves, moves[1:])), body
assert 0 < float(moves[0]["winrate"]) < 100, body

# querybest and query: move:[MOVE] (or egtb:/search:).
for action in ("querybest", "query"):
    status, body = text(call(action, START, method="POST"))
    assert body.split(":")[0] in ("move", "egtb", "search") and len(body.split(":")[1]) >= 4, body

# querypv: score:[SCORE],depth:[DEPTH],pv:[MOVE1]|...|[MOVEn]
status, body = text(call("querypv", START))
fields = dict(part.split(":", 1) for part in body.split(","))
int(fields["score"]), int(fields["depth"])
assert fields["pv"].split("|")[0] == moves[0]["move"], body

# queryscore: eval:[SCORE]
status, body = text(call("queryscore", START))
assert body.startswith("eval:") and int(body[5:]) == int(moves[0]["score"]), body

# ban: move:[MOVE]|move:[MOVE]
status, body = text(call("queryall", START, ban="move:" + moves[0]["move"]))
assert "move:" + moves[0]["move"] + "," not in body, body

# json=1
status, body = call("queryall", START, json="1")
reply = json.loads(body)
assert reply["status"] == "ok" and reply["moves"][0]["uci"] == moves[0]["move"], body
status, body = call("querypv", START, json="1")
reply = json.loads(body)
assert reply["status"] == "ok" and isinstance(reply["pv"], list), body

# A rook mates from the tables: egtb:[MOVE].
status, body = text(call("querybest", "3k5/9/9/9/9/9/9/9/4R4/4K4 w"))
assert body.startswith("egtb:"), body

# Bad input: "invalid board" with 200, as chessdb.cn sends it (its own page
# reads a reply only on 200), and the server goes on.
status, body = text(call("queryall", "not a board"))
assert (status, body) == (200, "invalid board"), (status, body)
status, body = text(call("queryall", "../../../etc/passwd"))
assert (status, body) == (200, "invalid board"), (status, body)
status, body = call("queryall", START + " moves " + "h2e2 e2h2 " * 2000)
assert status == 414, (status, body[:80])
status, body = text(call("queryall", START))
assert status == 200 and body.startswith("move:"), body
print("ok")

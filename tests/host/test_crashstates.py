"""Crash states of multi-block requests (tools/crash/crashstates.py), on synthetic NBD logs:
a request of N blocks is N writes that land or not independently. The random states tear a
request at any block, and the targeted states tear every request of an epoch in every way
(up to TORN_ALL blocks; beyond, at each block) while the rest of the epoch lands.
"""
import itertools, sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools" / "crash"))
import crashstates  # noqa: E402
from nbdlog import REC  # noqa: E402

B = crashstates.BSIZE


def blk(c):
    return bytes([c]) * B


def write_log(path, records):
    with open(path, "wb") as f:
        for kind, off, data in records:
            f.write(REC.pack(kind, off, len(data), 0.0) + data)


def recording(tmp_path, records, nblocks=16):
    init = tmp_path / "init.img"
    init.write_bytes(b"".join(blk(0x80 + b) for b in range(nblocks)))
    write_log(tmp_path / "log", records)
    return crashstates.Recording(str(tmp_path / "log"), str(init))


# Epoch 0: one block; flush; epoch 1: a block, a 4-block request (blocks 8-11), a block.
FOUR = [(b"W", 0, blk(1)), (b"F", 0, b""),
        (b"W", 2 * B, blk(2)), (b"W", 8 * B, blk(3) + blk(4) + blk(5) + blk(6)), (b"W", 5 * B, blk(7))]
REQ = [2, 3, 4, 5]          # the 4-block request's units, in Recording.blocks


def test_a_request_is_one_unit_per_block(tmp_path):
    rec = recording(tmp_path, FOUR)
    assert [b[0] for b in rec.blocks] == [0, 2, 8, 9, 10, 11, 5]
    assert [b[2] for b in rec.blocks] == [0, 1, 2, 2, 2, 2, 3]      # one log record for four blocks
    assert rec.requests == [(0, 1), (1, 1), (2, 4), (6, 1)]
    assert rec.epoch(1) == (1, 7)


def test_targeted_states_hold_every_torn_form_of_a_4_block_request(tmp_path):
    rec = recording(tmp_path, FOUR)
    states = rec.states(3, 0, targeted_from=1)
    targeted = [s for s in states if s[0] in ("drop", "torn", "torn-subset")]
    assert all(m == 1 for _, m, _ in targeted)
    others = [1, 6]
    forms = {}
    for kind, m, order in targeted:
        assert order == sorted(order), "the units that land, land in issue order"
        landed = tuple(i for i in order if i in REQ)
        rest = [i for i in order if i not in REQ]
        if rest == others:                      # the rest of the epoch whole: the request torn
            forms.setdefault(landed, kind)
    # Every set of the request's blocks short of all four: 15 torn forms, each once.
    want = [c for size in range(4) for c in itertools.combinations(REQ, size)]
    assert sorted(forms) == sorted(want), sorted(set(want) - set(forms))
    # The tear after each block (a disk writing it front to back) is named so.
    for k in range(3):
        assert forms[tuple(REQ[:k])] == "torn", k
    assert forms[(REQ[0], REQ[2])] == "torn-subset"
    assert forms[(REQ[0], REQ[1], REQ[2])] == "drop"       # one block alone missing: a drop state
    assert len(targeted) == len(set(tuple(o) for _, _, o in targeted)), "no state twice"
    assert [s for s in rec.states(3, 0, targeted_from=1, torn=False) if s[0] != "drop"] == \
        [s for s in states if s[0] not in ("drop", "torn", "torn-subset")]
    # The image of a torn state: the landed blocks new, the others as before.
    kind, m, order = next(s for s in targeted if s[0] == "torn" and
                          tuple(i for i in s[2] if i in REQ) == (REQ[0],))
    img = tmp_path / "torn.img"
    rec.write_image(str(img), m, order, crashstates.nonzero_blocks(rec.initial))
    data = img.read_bytes()
    got = [data[b * B] for b in (0, 2, 8, 9, 10, 11, 5)]
    assert got == [1, 2, 3, 0x89, 0x8A, 0x8B, 7], got


def test_random_states_tear_a_request_at_every_block(tmp_path):
    rec = recording(tmp_path, FOUR)
    states = rec.states(1, 300)
    # Epoch 1 is the tail in flight at the kill: its states are tail-prefix and tail-subset
    # (a prefix drawn after an equal subset is not made twice).
    landed = {tuple(sorted(o)) for k, m, o in states if k.startswith("tail-") and m == 1}
    for k in range(1, 4):           # landed up to the request's k-th block, the rest lost
        assert tuple(range(1, 2 + k)) in landed, k
    assert (1, REQ[1], REQ[3]) in landed and (1, REQ[0], REQ[2]) in landed


def test_large_requests_torn_at_each_block(tmp_path):
    rec = recording(tmp_path, [(b"W", 0, blk(1)), (b"F", 0, b""),
                               (b"W", 2 * B, b"".join(blk(10 + k) for k in range(10)))])
    states = rec.states(1, 0, targeted_from=1)
    torn = [s for s in states if s[0] in ("drop", "torn", "torn-subset")]
    landed = {tuple(o) for _, _, o in torn}
    for k in range(10):             # cut after each block, and each block alone missing
        assert tuple(range(1, 1 + k)) in landed or k == 0, k
        assert tuple(i for i in range(1, 11) if i != 1 + k) in landed, k
    # The request is the whole epoch: lost whole, it is the flush state, not made twice.
    assert ("flush", 1, []) in states and () not in landed
    assert len(torn) == 10 + 8 and not [s for s in torn if s[0] == "torn-subset"]


def test_one_block_requests_are_not_torn_further(tmp_path):
    rec = recording(tmp_path, [(b"W", 0, blk(1)), (b"W", B, blk(2)), (b"F", 0, b""),
                               (b"W", 2 * B, blk(3)), (b"W", 3 * B, blk(4)), (b"W", 4 * B, blk(5))])
    targeted = rec.states(1, 0, targeted_from=0)
    assert [s for s in targeted if s[0] not in ("flush", "end")] == \
        [("drop", 0, [1]), ("drop", 0, [0]),
         ("drop", 1, [3, 4]), ("drop", 1, [2, 4]), ("drop", 1, [2, 3])]


def test_blocks_free_at_the_start_hold_stale_bytes_until_written(tmp_path):
    """A real disk's free blocks hold old bytes, not zeros: every data block the recording
    writes that was zero in the initial image holds stale_data in a state until a write of it
    lands, so a file given a block its data never reached shows bytes of no file."""
    init = tmp_path / "init.img"
    init.write_bytes(blk(0x80) * 2 + bytes(B) * 14)          # blocks 0-1 used, the rest free
    write_log(tmp_path / "log", [(b"W", 1 * B, blk(1)), (b"W", 4 * B, blk(2)), (b"F", 0, b""),
                                 (b"W", 5 * B, blk(3) + blk(4))])
    rec = crashstates.Recording(str(tmp_path / "log"), str(init))
    initial = crashstates.nonzero_blocks(rec.initial)
    stale = rec.stale_blocks(initial, data_start=2)
    assert stale == [4, 5, 6]                  # written, free at the start, not below data_start
    img = tmp_path / "s.img"
    rec.write_image(str(img), 1, [3], initial, stale)     # after the flush, block 6 landed
    data = img.read_bytes()
    blocks = [data[b * B:(b + 1) * B] for b in range(16)]
    assert blocks[1] == blk(1) and blocks[4] == blk(2) and blocks[6] == blk(4)
    assert blocks[5] == crashstates.stale_data(5) and blocks[5].startswith(b"stale block 00000005\n")
    assert blocks[0] == blk(0x80) and blocks[7] == bytes(B)   # used at the start; never written


def test_a_rewritten_state_image_is_the_state_image(tmp_path):
    """StateImage rewrites one file from state to state where they differ and where the last
    repair wrote: after each state, byte for byte the image write_image makes whole, whatever the
    repair wrote (told by repaired()), and a repair that said nothing makes the next one whole."""
    import random
    rec = recording(tmp_path, FOUR + [(b"F", 0, b""), (b"W", 3 * B, blk(8)), (b"W", 2 * B, blk(9))])
    init = crashstates.nonzero_blocks(rec.initial)
    del init[3]                                     # a block of the disk that holds zeros
    stale = [13, 14]
    img = crashstates.StateImage(rec, str(tmp_path / "state.img"), init, stale)
    states = rec.states(3, 4, targeted_from=0)
    rng = random.Random(1)
    sizes = []
    for n, (kind, m, order) in enumerate(states * 2):
        sizes.append(len(img.write(m, order)))
        rec.write_image(str(tmp_path / "whole.img"), m, order, init, stale)
        assert (tmp_path / "state.img").read_bytes() == (tmp_path / "whole.img").read_bytes(), (n, kind, m, order)
        hit = rng.sample(range(16), 3)              # the repair writes three blocks of its own
        with open(tmp_path / "state.img", "r+b") as f:
            for b in hit:
                f.seek(b * B)
                f.write(bytes([0xEE]) * B)
        if n % 7 != 3:
            img.repaired(hit)                       # else: said nothing
    assert sizes[0] == 15 and min(sizes) <= 5, sizes   # the first made whole (less its zero block), then a few

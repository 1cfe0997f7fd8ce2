#!/usr/bin/env python3
"""A disk that records what reaches it: a small NBD server that serves a raw image file and
logs every write (offset, data) and every flush, in the order they arrive.

Why: killing QEMU keeps every write it handed to the host, so a plain image file can never lose
unflushed writes and a fsync that skips its flush passes every test. With the log, the crash
states of a real disk can be built afterwards (tools/crash/crashstates.py): after a power cut only
the writes before the last completed flush are certain; the later ones may be lost, or land
in any order.

The protocol (NetworkBlockDevice's doc/proto.md), only what QEMU's client needs: the fixed
newstyle handshake with NO_ZEROES, options EXPORT_NAME and GO (INFO as GO without the switch),
every other option answered "unsupported" (so no structured replies: simple replies only);
then READ, WRITE, FLUSH and DISC. The export advertises SEND_FLUSH, so QEMU (cache=writeback,
its default) turns each guest flush into NBD_CMD_FLUSH, and no FUA, so it never hides a
flush inside a write. Requests are served one at a time in arrival order: a write is applied
to the image and logged before its reply, a flush is logged (and counted) before its reply,
so when the guest sees a flush complete, the log already holds it behind every earlier write.

The log is a sequence of records, each a header struct.pack("<cQId", kind, offset, length,
host time) followed, for kind b"W", by length bytes of data; kind b"F" is a flush (offset and
length 0). read_log() gives them back.

    nbdlog.py IMAGE SOCKET LOG      serve until the client disconnects (for trying it by hand)
"""
import os, socket, struct, sys, threading, time

NBDMAGIC = 0x4E42444D41474943
IHAVEOPT = 0x49484156454F5054
REPLY_MAGIC = 0x3E889045565A9
REQ_MAGIC = 0x25609513
SIMPLE_REPLY = 0x67446698

FLAG_FIXED_NEWSTYLE, FLAG_NO_ZEROES = 1, 2
OPT_EXPORT_NAME, OPT_ABORT, OPT_INFO, OPT_GO = 1, 2, 6, 7
REP_ACK, REP_INFO, REP_ERR_UNSUP = 1, 3, 0x80000001
INFO_EXPORT = 0
TFLAG_HAS_FLAGS, TFLAG_SEND_FLUSH = 1, 4
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH = 0, 1, 2, 3
EIO, EINVAL = 5, 22

REC = struct.Struct("<cQId")


def _recv(conn, n):
    buf = bytearray()
    while len(buf) < n:
        b = conn.recv(n - len(buf))
        if not b:
            raise EOFError
        buf += b
    return bytes(buf)


class LogServer:
    """Serves image on a Unix socket; one client (QEMU), in a thread of its own.

    writes and flushes count what has been logged; the recorder reads them when the guest
    prints an acknowledgement (a flush the guest saw complete is already counted)."""

    def __init__(self, image, sockpath, logpath):
        self.image, self.sockpath, self.logpath = image, sockpath, logpath
        self.writes = self.flushes = self.reads = 0
        self.error = None
        self.lock = threading.Lock()
        self.fd = os.open(image, os.O_RDWR)
        self.size = os.fstat(self.fd).st_size
        self.log = open(logpath, "wb")
        if os.path.exists(sockpath):
            os.unlink(sockpath)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(sockpath)
        self.sock.listen(1)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.done = threading.Event()

    def start(self):
        self.thread.start()
        return self

    def position(self):
        """(writes, flushes) logged so far."""
        with self.lock:
            return self.writes, self.flushes

    def _run(self):
        try:
            conn, _ = self.sock.accept()
            with conn:
                self._serve(conn)
        except EOFError:
            pass                        # the client went away (QEMU killed): a power cut
        except Exception as e:          # reported by close(), never silently dropped
            self.error = "nbdlog: %s: %s" % (type(e).__name__, e)
        finally:
            self.log.flush()
            self.done.set()

    def _handshake(self, conn):
        conn.sendall(struct.pack(">QQH", NBDMAGIC, IHAVEOPT, FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES))
        cflags, = struct.unpack(">I", _recv(conn, 4))
        no_zeroes = bool(cflags & FLAG_NO_ZEROES)
        tflags = TFLAG_HAS_FLAGS | TFLAG_SEND_FLUSH
        while True:
            magic, opt, length = struct.unpack(">QII", _recv(conn, 16))
            if magic != IHAVEOPT:
                raise ValueError("bad option magic %#x" % magic)
            data = _recv(conn, length)
            if opt == OPT_EXPORT_NAME:
                conn.sendall(struct.pack(">QH", self.size, tflags) + (b"" if no_zeroes else bytes(124)))
                return
            if opt == OPT_ABORT:
                conn.sendall(struct.pack(">QIII", REPLY_MAGIC, opt, REP_ACK, 0))
                raise EOFError
            if opt in (OPT_GO, OPT_INFO):
                info = struct.pack(">HQH", INFO_EXPORT, self.size, tflags)
                conn.sendall(struct.pack(">QIII", REPLY_MAGIC, opt, REP_INFO, len(info)) + info)
                conn.sendall(struct.pack(">QIII", REPLY_MAGIC, opt, REP_ACK, 0))
                if opt == OPT_GO:
                    return
                continue
            conn.sendall(struct.pack(">QIII", REPLY_MAGIC, opt, REP_ERR_UNSUP, 0))

    def _serve(self, conn):
        self._handshake(conn)
        while True:
            magic, flags, cmd, handle, off, length = struct.unpack(">IHHQQI", _recv(conn, 28))
            if magic != REQ_MAGIC:
                raise ValueError("bad request magic %#x" % magic)
            err, payload = 0, b""
            if cmd == CMD_WRITE:
                data = _recv(conn, length)
                if off + length > self.size:
                    err = EINVAL
                else:
                    os.pwrite(self.fd, data, off)
                    self.log.write(REC.pack(b"W", off, length, time.time()))
                    self.log.write(data)
                    with self.lock:
                        self.writes += 1
            elif cmd == CMD_READ:
                if off + length > self.size:
                    err = EINVAL
                else:
                    payload = os.pread(self.fd, length, off)
                    with self.lock:
                        self.reads += 1
            elif cmd == CMD_FLUSH:
                self.log.write(REC.pack(b"F", 0, 0, time.time()))
                with self.lock:
                    self.flushes += 1
            elif cmd == CMD_DISC:
                return
            else:
                err = EINVAL
            conn.sendall(struct.pack(">IIQ", SIMPLE_REPLY, err, handle) + (payload if not err else b""))

    def close(self, timeout=10):
        """Waits for the client to be gone; returns an error text, or None."""
        self.done.wait(timeout)
        self.sock.close()
        try:
            os.unlink(self.sockpath)
        except OSError:
            pass
        self.log.close()
        os.close(self.fd)
        return self.error


def read_log(path):
    """The records of a log: a list of (kind, offset, data, host time); kind "W" or "F".
    A record cut short (the recorder itself killed) ends the list."""
    recs = []
    with open(path, "rb") as f:
        blob = f.read()
    pos = 0
    while pos + REC.size <= len(blob):
        kind, off, length, t = REC.unpack_from(blob, pos)
        pos += REC.size
        if kind == b"W":
            if pos + length > len(blob):
                break
            recs.append(("W", off, blob[pos:pos + length], t))
            pos += length
        else:
            recs.append(("F", 0, b"", t))
    return recs


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: nbdlog.py IMAGE SOCKET LOG")
    s = LogServer(*sys.argv[1:]).start()
    print("nbdlog: serving %s on %s" % (sys.argv[1], sys.argv[2]), flush=True)
    s.done.wait()
    err = s.close()
    print("nbdlog: %d writes, %d flushes, %d reads" % (s.writes, s.flushes, s.reads))
    if err:
        sys.exit(err)


if __name__ == "__main__":
    main()

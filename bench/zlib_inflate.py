"""zlib's inflate alone, the floor of the zlib-only build: inflates every gzip
member of a file as raw deflate with the system's libz (the library the
zlib-only `analyze` uses), called through ctypes into one reused 1 MiB buffer,
and discards the text. It reads the members' headers and skips their trailers
itself and checks no CRC-32 (zlib's, a table byte at a time, would add about
6 %; `analyze` checks it too, with carry-less multiplication, at a small
fraction of the inflate's cost). (Python's own `zlib` module allocates every
piece of output and copies it once more: about 10 % slower than this.)

    python bench/zlib_inflate.py FILE

Prints the decoded byte count. bench/run times it beside `gzip -dc`, whose own
inflater (gzip's, not zlib's) can be faster or slower than zlib's on a given
file and machine: on one gzip member, which `analyze` inflates serially, its
zlib-only build cannot take much less time than this.
"""
import ctypes
import ctypes.util
import sys

CHUNK = 1 << 18      # bytes read at a time, as analyze reads
OUT = 1 << 20        # text inflated per call, as analyze's 1 MiB chunks

Z_OK, Z_STREAM_END, Z_BUF_ERROR = 0, 1, -5


class ZStream(ctypes.Structure):
    _fields_ = [
        ("next_in", ctypes.c_void_p), ("avail_in", ctypes.c_uint), ("total_in", ctypes.c_ulong),
        ("next_out", ctypes.c_void_p), ("avail_out", ctypes.c_uint), ("total_out", ctypes.c_ulong),
        ("msg", ctypes.c_char_p), ("state", ctypes.c_void_p),
        ("zalloc", ctypes.c_void_p), ("zfree", ctypes.c_void_p), ("opaque", ctypes.c_void_p),
        ("data_type", ctypes.c_int), ("adler", ctypes.c_ulong), ("reserved", ctypes.c_ulong),
    ]


libz = ctypes.CDLL(ctypes.util.find_library("z") or "libz.so.1")
libz.zlibVersion.restype = ctypes.c_char_p
libz.inflateInit2_.argtypes = [ctypes.POINTER(ZStream), ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
libz.inflate.argtypes = [ctypes.POINTER(ZStream), ctypes.c_int]
libz.inflateReset.argtypes = [ctypes.POINTER(ZStream)]
libz.inflateEnd.argtypes = [ctypes.POINTER(ZStream)]


class Input:
    def __init__(self, f):
        self.f, self.data = f, b""

    def need(self, n):
        """At least n bytes buffered, or all that is left."""
        while len(self.data) < n:
            more = self.f.read(CHUNK)
            if not more:
                break
            self.data += more
        return len(self.data) >= n

    def take(self, n):
        if not self.need(n):
            sys.exit("truncated gzip header")
        head, self.data = self.data[:n], self.data[n:]
        return head

    def skip_through_nul(self):
        while b"\0" not in self.data:
            if not self.need(len(self.data) + 1):
                sys.exit("truncated gzip header")
        self.data = self.data[self.data.index(b"\0") + 1:]


def skip_header(source):
    head = source.take(10)
    if head[:3] != b"\x1f\x8b\x08":
        sys.exit("not a gzip member")
    flags = head[3]
    if flags & 0x04:                                    # FEXTRA
        source.take(int.from_bytes(source.take(2), "little"))
    if flags & 0x08:                                    # FNAME
        source.skip_through_nul()
    if flags & 0x10:                                    # FCOMMENT
        source.skip_through_nul()
    if flags & 0x02:                                    # FHCRC
        source.take(2)


def inflate(path):
    decoded = 0
    stream = ZStream()
    if libz.inflateInit2_(ctypes.byref(stream), -15, libz.zlibVersion(), ctypes.sizeof(ZStream)) != Z_OK:
        sys.exit("inflateInit2 failed")
    out = ctypes.create_string_buffer(OUT)
    with open(path, "rb") as f:
        source = Input(f)
        while True:
            # Zero padding between or after members.
            while source.need(1) and source.data[:1] == b"\0":
                source.data = source.data.lstrip(b"\0")
            if not source.need(1):
                break
            skip_header(source)
            libz.inflateReset(ctypes.byref(stream))
            ended = False
            while not ended:
                data = source.data or f.read(CHUNK)
                source.data = b""
                if not data:
                    sys.exit(f"{path}: the last gzip member is truncated")
                buffer = ctypes.create_string_buffer(data, len(data))
                stream.next_in, stream.avail_in = ctypes.addressof(buffer), len(data)
                while stream.avail_in > 0 and not ended:
                    stream.next_out, stream.avail_out = ctypes.addressof(out), OUT
                    left = stream.avail_in
                    status = libz.inflate(ctypes.byref(stream), 0)
                    made = OUT - stream.avail_out
                    if status not in (Z_OK, Z_STREAM_END, Z_BUF_ERROR) or (made == 0 and stream.avail_in == left):
                        sys.exit(f"{path}: inflate failed ({status})")
                    decoded += made
                    ended = status == Z_STREAM_END
                # Input is left over only at the end of the member (the trailer and
                # what follows); otherwise zlib read everything it was given.
                if ended:
                    source.data = data[len(data) - stream.avail_in:]
            source.take(8)                              # CRC-32 and ISIZE, not checked
    libz.inflateEnd(ctypes.byref(stream))
    return decoded


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: zlib_inflate.py FILE")
    print(inflate(sys.argv[1]))

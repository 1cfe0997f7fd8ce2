"""Names for the file cache's blocks: which file a descriptor number is, and what a block
named by its disk address holds.

The cache names a file's blocks by descriptor number only (fs/cache.h); the kernel keeps no
path. A path is found the way a person would: directory blocks that happen to be in the cache
are read for their entries (struct fs_dirent), and each name is followed up through its
parents to the root. A file opened for writing also has its path in the cache's file table
(cache_set_name). Where neither is in memory, the descriptor number is all there is: "ino 23".
Which descriptors are directories comes from the in-memory inodes and from descriptor blocks
in the cache.
"""
import struct

import kconst as K
from kmem import Layout, addr, read, value


class Names:
    def __init__(self, st):
        self.st = st
        self._paths = None

    def super(self):
        return {f: int(value("fs_sb")[f]) for f in ("bitmap_start", "bitmap_blocks", "desc_start",
                                                     "desc_blocks", "data_start", "nblocks")}

    def dev_block(self, diskaddr):
        """What the device block at diskaddr is: superblock, bitmap, descriptors, indirect."""
        sb = self.super()
        if diskaddr == 1:
            return "superblock"
        if sb["bitmap_start"] <= diskaddr < sb["bitmap_start"] + sb["bitmap_blocks"]:
            return "bitmap %d" % (diskaddr - sb["bitmap_start"])
        if sb["desc_start"] <= diskaddr < sb["desc_start"] + sb["desc_blocks"]:
            first = (diskaddr - sb["desc_start"]) * 32
            return "descriptors %d-%d" % (first, first + 31)
        return "indirect block"

    def _directories(self, blocks):
        dirs = {K.FS_ROOT_DESC}
        icache = Layout(value("icache", "fs/inode.c").type).read(addr("icache", "fs/inode.c"))
        for ip in icache.inode:
            if ip.ref > 0 and ip.valid and ip.d.type == K.FS_T_DIR:
                dirs.add(ip.inum)
        sb = self.super()
        for b in blocks:
            if b.fileid == K.CACHE_DEV and b.data and b.flags & K.CB_VALID and \
                    sb["desc_start"] <= b.blockno < sb["desc_start"] + sb["desc_blocks"]:
                data = read(b.data, K.FS_BSIZE)
                first = (b.blockno - sb["desc_start"]) * 32
                for i in range(32):
                    if struct.unpack_from("<H", data, i * 128)[0] == K.FS_T_DIR:
                        dirs.add(first + i)
        return dirs

    def paths(self):
        """{descriptor number: path} for every file whose name is in memory."""
        if self._paths is not None:
            return self._paths
        blocks = self.st.cache_list("lru")
        dirs = self._directories(blocks)
        parent = {}
        for b in blocks:
            if b.fileid in dirs and b.data and b.flags & K.CB_VALID:
                data = read(b.data, K.FS_BSIZE)
                for off in range(0, K.FS_BSIZE, K.FS_DIRENT_SIZE):
                    ino = struct.unpack_from("<I", data, off)[0]
                    name = data[off + 4:off + 32].split(b"\0", 1)[0].decode("latin-1")
                    if ino and name not in (".", "..", ""):
                        parent[ino] = (b.fileid, name)
        paths = {K.FS_ROOT_DESC: "/"}
        for ino in parent:
            parts, cur, seen = [], ino, set()
            while cur in parent and cur not in seen:
                seen.add(cur)
                cur, name = parent[cur][0], parent[cur][1]
                parts.append(name)
            if cur == K.FS_ROOT_DESC:
                paths[ino] = "/" + "/".join(reversed(parts))
        for cf in self.st.cfiles():
            if cf.used and cf.name and cf.fileid not in paths:
                paths[cf.fileid] = cf.name
        self._paths = paths
        return paths

    def file(self, fileid):
        if fileid == K.CACHE_DEV:
            return "dev"
        return self.paths().get(fileid, "ino %d" % fileid)

    def block(self, b):
        """(file, block) words for a cache block."""
        if b.fileid == K.CACHE_DEV:
            return "dev", "%d (%s)" % (b.blockno, self.dev_block(b.blockno))
        return self.file(b.fileid), str(b.blockno)

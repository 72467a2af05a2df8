"""A zip file (a wheel) read over HTTP Range requests, never as a whole.

The end of the file holds the central directory (the list of members with their offsets): one
Range request for the last 64 KiB finds it (zip64 included). A small member is then one more
request; a large compressed member is searched in chunks, decompressing as it streams, up to a
cap, and the search stops at the first match.
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass
from typing import Final

from harvest.net import Fetcher

_EOCD: Final = b"PK\x05\x06"
_EOCD64_LOCATOR: Final = b"PK\x06\x07"
_EOCD64: Final = b"PK\x06\x06"
_CENTRAL: Final = b"PK\x01\x02"
_LOCAL: Final = b"PK\x03\x04"
_CENTRAL_HEADER: Final = struct.Struct("<4sHHHHHHIIIHHHHHII")
_LOCAL_HEADER_SIZE: Final = 30
#: Room for a local header's extra field, which may differ from the central directory's.
_LOCAL_SLACK: Final = 512
_STORED, _DEFLATED = 0, 8
_UNSET32: Final = 0xFFFFFFFF
#: Decompressed bytes handled at once while searching (bounds memory for very compressible data).
_OUTPUT_STEP: Final = 16 << 20
#: Bytes kept from the end of one decompressed piece to find a match across the boundary.
_OVERLAP: Final = 8192


class ZipError(Exception):
    """The file is not a zip the harvester can read, or a member is missing or too large."""


@dataclass(frozen=True)
class Member:
    """One central directory entry."""

    name: str
    method: int
    compressed: int
    size: int
    offset: int
    crc: int


@dataclass(frozen=True)
class ScanResult:
    """A search through a compressed member: the match (None: not found) and how much was read."""

    match: bytes | None
    compressed_read: int
    complete: bool


class RemoteZip:
    """The central directory of a remote zip file, and reads of its members."""

    def __init__(self, fetcher: Fetcher, url: str, tail: int = 1 << 16) -> None:
        self._fetcher = fetcher
        self.url = url
        data, self.size = fetcher.get_tail(url, tail)
        base = self.size - len(data)
        at = data.rfind(_EOCD)
        if at < 0 or len(data) - at < 22:
            raise ZipError(f"{url}: no end of central directory in the last {len(data)} bytes")
        entries, cd_size, cd_offset = struct.unpack("<HII", data[at + 10 : at + 20])
        locator = at - 20
        if locator >= 0 and data[locator : locator + 4] == _EOCD64_LOCATOR:
            (eocd64,) = struct.unpack("<Q", data[locator + 8 : locator + 16])
            record = self._bytes(data, base, eocd64, 56)
            if record[:4] != _EOCD64:
                raise ZipError(f"{url}: zip64 end of central directory not where its locator says")
            entries, cd_size, cd_offset = struct.unpack("<QQQ", record[32:56])
        directory = self._bytes(data, base, cd_offset, cd_size)
        self.members = _parse_central(directory, entries, url)

    def _bytes(self, tail: bytes, base: int, offset: int, length: int) -> bytes:
        """``length`` bytes at ``offset``: from the tail already read, else by a Range request."""
        if offset >= base:
            return tail[offset - base : offset - base + length]
        return self._fetcher.get_range(self.url, offset, offset + length - 1)

    def find(self, *names: str) -> Member | None:
        """The first of ``names`` the zip has."""
        for name in names:
            if name in self.members:
                return self.members[name]
        return None

    def read(self, name: str, limit: int = 4 << 20) -> bytes:
        """The uncompressed content of a (small) member, checked against its CRC."""
        member = self.members.get(name)
        if member is None:
            raise ZipError(f"{self.url}: no member {name}")
        if member.compressed > limit:
            raise ZipError(f"{self.url}: {name} is {member.compressed} bytes compressed, over {limit}")
        head_room = _LOCAL_HEADER_SIZE + len(name.encode()) + _LOCAL_SLACK
        end = min(member.offset + head_room + member.compressed, self.size) - 1
        got = self._fetcher.get_range(self.url, member.offset, end)
        start = self._data_start(got, name)
        if start + member.compressed > len(got):  # a local extra field longer than the slack
            more = member.offset + len(got)
            got += self._fetcher.get_range(self.url, more, member.offset + start + member.compressed - 1)
        raw = got[start : start + member.compressed]
        if member.method == _STORED:
            content = raw
        elif member.method == _DEFLATED:
            content = zlib.decompress(raw, -15)
        else:
            raise ZipError(f"{self.url}: {name} uses compression method {member.method}")
        if zlib.crc32(content) != member.crc or len(content) != member.size:
            raise ZipError(f"{self.url}: {name} does not match its CRC or size")
        return content

    def _data_start(self, header: bytes, name: str) -> int:
        if header[:4] != _LOCAL:
            raise ZipError(f"{self.url}: no local header for {name}")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        return _LOCAL_HEADER_SIZE + name_length + extra_length

    def scan(self, name: str, pattern: re.Pattern[bytes], limit: int, chunk: int = 8 << 20) -> ScanResult:
        """Search a member's uncompressed bytes for ``pattern``, reading at most ``limit`` compressed bytes.

        The member is fetched in ``chunk``-sized Range requests and decompressed as it comes; the
        search stops at the first complete match.
        """
        member = self.members[name]
        if member.method not in (_STORED, _DEFLATED):
            raise ZipError(f"{self.url}: {name} uses compression method {member.method}")
        head = self._fetcher.get_range(
            self.url,
            member.offset,
            min(member.offset + _LOCAL_HEADER_SIZE + len(name.encode()) + _LOCAL_SLACK, self.size) - 1,
        )
        start = member.offset + self._data_start(head, name)
        inflate = zlib.decompressobj(-15) if member.method == _DEFLATED else None
        budget = min(limit, member.compressed)
        done = 0
        carry = b""
        while done < budget:
            size = min(chunk, budget - done)
            data = self._fetcher.get_range(self.url, start + done, start + done + size - 1)
            done += size
            last = done >= member.compressed
            pieces = _inflate(inflate, data, flush=last) if inflate else [data]
            for index, piece in enumerate(pieces):
                final = last and index == len(pieces) - 1
                buffer = carry + piece
                found = pattern.search(buffer)
                if found and (found.end() < len(buffer) or final):
                    return ScanResult(found.group(0), done, complete=last)
                carry = buffer[found.start() :] if found else buffer[-_OVERLAP:]
        return ScanResult(None, done, complete=done >= member.compressed)


def _inflate(inflate: zlib._Decompress, data: bytes, *, flush: bool) -> list[bytes]:
    """Decompress ``data`` in pieces of at most _OUTPUT_STEP bytes."""
    pieces = []
    piece = inflate.decompress(data, _OUTPUT_STEP)
    while piece:
        pieces.append(piece)
        piece = inflate.decompress(inflate.unconsumed_tail, _OUTPUT_STEP) if inflate.unconsumed_tail else b""
    if flush:
        pieces.append(inflate.flush())
    return pieces


def _parse_central(directory: bytes, entries: int, url: str) -> dict[str, Member]:
    members: dict[str, Member] = {}
    at = 0
    for _ in range(entries):
        if directory[at : at + 4] != _CENTRAL:
            raise ZipError(f"{url}: damaged central directory at entry {len(members)}")
        fields = _CENTRAL_HEADER.unpack(directory[at : at + _CENTRAL_HEADER.size])
        flags, method, crc, compressed, size = fields[3], fields[4], fields[7], fields[8], fields[9]
        name_length, extra_length, comment_length, offset = fields[10], fields[11], fields[12], fields[16]
        at += _CENTRAL_HEADER.size
        raw_name = directory[at : at + name_length]
        extra = directory[at + name_length : at + name_length + extra_length]
        at += name_length + extra_length + comment_length
        size, compressed, offset = _zip64_sizes(extra, size, compressed, offset)
        name = raw_name.decode("utf-8" if flags & 0x800 else "cp437")
        members[name] = Member(name, method, compressed, size, offset, crc)
    return members


def _zip64_sizes(extra: bytes, size: int, compressed: int, offset: int) -> tuple[int, int, int]:
    """Sizes and offset from the zip64 extra field where the 32-bit fields are saturated."""
    at = 0
    while at + 4 <= len(extra):
        tag, length = struct.unpack("<HH", extra[at : at + 4])
        if tag == 1:
            values = list(struct.unpack(f"<{length // 8}Q", extra[at + 4 : at + 4 + length // 8 * 8]))
            if size == _UNSET32 and values:
                size = values.pop(0)
            if compressed == _UNSET32 and values:
                compressed = values.pop(0)
            if offset == _UNSET32 and values:
                offset = values.pop(0)
            break
        at += 4 + length
    return size, compressed, offset

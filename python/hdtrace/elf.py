"""What `hdtrace run` needs to know about an executable or a shared library.

A minimal reader of 64- and 32-bit ELF files, either byte order: the shared
libraries a file needs (DT_NEEDED) and the names in its symbol tables
(.symtab, .dynsym). No binutils needed, so that it also works on a machine
where only the runtime is installed.
"""
import struct

_SHT_SYMTAB, _SHT_DYNAMIC, _SHT_DYNSYM = 2, 6, 11
_DT_NEEDED = 1


class NotElfError(ValueError):
    """The file is not an ELF file (a script, say)."""


class _Elf:
    def __init__(self, path):
        with open(path, "rb") as stream:
            self.data = stream.read()
        data = self.data
        if data[:4] != b"\x7fELF" or len(data) < 64:
            raise NotElfError(f"{path} is not an ELF file")
        self.wide = data[4] == 2
        self.order = "<" if data[5] == 1 else ">"
        if self.wide:
            shoff, = struct.unpack_from(self.order + "Q", data, 0x28)
            shentsize, shnum = struct.unpack_from(self.order + "HH", data, 0x3A)
        else:
            shoff, = struct.unpack_from(self.order + "I", data, 0x20)
            shentsize, shnum = struct.unpack_from(self.order + "HH", data, 0x2E)
        self.sections = []
        for index in range(shnum):
            base = shoff + index * shentsize
            if base + shentsize > len(data):
                break
            if self.wide:
                _, kind, _, _, offset, size, link, _, _, entsize = struct.unpack_from(
                    self.order + "IIQQQQIIQQ", data, base)
            else:
                _, kind, _, _, offset, size, link, _, _, entsize = struct.unpack_from(
                    self.order + "IIIIIIIIII", data, base)
            self.sections.append((kind, offset, size, link, entsize))

    def string(self, table_index, position):
        _, offset, size, _, _ = self.sections[table_index]
        start = offset + position
        end = self.data.find(b"\0", start, offset + size)
        return self.data[start:end if end >= 0 else offset + size].decode("utf-8", "replace")

    def needed(self):
        entry = struct.Struct(self.order + ("qQ" if self.wide else "iI"))
        names = []
        for kind, offset, size, link, _ in self.sections:
            if kind != _SHT_DYNAMIC:
                continue
            for position in range(offset, offset + size - entry.size + 1, entry.size):
                tag, value = entry.unpack_from(self.data, position)
                if tag == 0:
                    break
                if tag == _DT_NEEDED:
                    names.append(self.string(link, value))
        return names

    def symbols(self):
        # st_name is the first 4 bytes of an entry in both classes.
        for kind, offset, size, link, entsize in self.sections:
            if kind not in (_SHT_SYMTAB, _SHT_DYNSYM) or entsize == 0:
                continue
            for position in range(offset, offset + size - entsize + 1, entsize):
                name_position, = struct.unpack_from(self.order + "I", self.data, position)
                if name_position:
                    yield self.string(link, name_position)


def needed_libraries(path):
    """The DT_NEEDED names of an ELF file, e.g. ['libmpi.so.40', 'libc.so.6']."""
    return _Elf(path).needed()


def symbol_names(path):
    """Every name in the file's symbol tables (empty for a stripped file without .dynsym)."""
    return set(_Elf(path).symbols())


def contains_bytes(path, needle):
    """Whether the file holds these bytes anywhere (for stripped executables)."""
    with open(path, "rb") as stream:
        return needle in stream.read()

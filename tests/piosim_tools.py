"""The PIOsim tools' reading of a project's <Datatypes>, for the tests.

The tools (the simulator and the viewer, through their Java project
reader) are not available here; these are their rules, written down
independently of HDTrace's own code so that a test can hold the merger's
output against them:

- an element is mapped to a type by its name; NAMED, CONTIGUOUS, VECTOR,
  STRUCT and SUBARRAY are read in full, HINDEXED, HVECTOR and INDEXED_BLOCK
  as a placeholder of size 0, and any other name refuses the project;
- NAMED knows twelve predefined names with fixed sizes (LB and UB are 0);
- CONTIGUOUS: count x the old type's size and extent;
- VECTOR: size count x blocklength x old size; the extent has been read as
  old extent x stride x count and as old extent x stride x blocklength, so
  a written type must come out right under both readings;
- STRUCT: size the sum of blocklen x child size; extent the *last* child's
  displacement + blocklen x child extent (not the largest end);
- SUBARRAY: product of subsizes x old size, product of sizes x old extent;
- numbers are 32-bit integers; ids are 64-bit.
"""

FULL_FORMS = ("NAMED", "CONTIGUOUS", "VECTOR", "STRUCT", "SUBARRAY")
PLACEHOLDER_FORMS = ("HINDEXED", "HVECTOR", "INDEXED_BLOCK")
NAMED_SIZES = {"MPI_BYTE": 1, "MPI_CHAR": 1, "MPI_UNSIGNED_CHAR": 1, "MPI_PACKED": 1,
               "MPI_INT": 4, "MPI_INTEGER": 4, "MPI_FLOAT": 4, "MPI_DOUBLE": 8,
               "MPI_DOUBLE_PRECISION": 8, "MPI_LONG_LONG": 8, "MPI_LB": 0, "MPI_UB": 0,
               "MPI_LONG": 4}
INT_ATTRIBUTES = ("count", "blocklength", "stride", "displacement", "blocklen", "size",
                  "subsize", "start")


class ToolsRank:
    """One <Rank> of <Datatypes> as the tools read it: for each id, the size
    and the extent under both readings of VECTOR. Raises AssertionError where
    the tools would refuse the project or read a placeholder."""

    def __init__(self, rank_element, where=""):
        self.where = where
        self.types = {}
        self.elements = {}
        for element in rank_element:
            self.types[element.get("id")] = self._read(element)
            self.elements[element.get("id")] = element

    def _fail(self, element, problem):
        raise AssertionError(f"{self.where} <{element.tag} id='{element.get('id')}'>: {problem}")

    def _number(self, element, attributes, name):
        text = attributes.get(name)
        if text is None:
            self._fail(element, f"has no {name}")
        value = int(text)
        if not -2**31 <= value < 2**31:
            self._fail(element, f"{name}={value} is not a 32-bit integer")
        return value

    def _old(self, element, type_id):
        if type_id not in self.types:
            self._fail(element, f"references type {type_id}, not defined before it")
        return self.types[type_id]

    def _read(self, element):
        tag, get = element.tag, element.attrib
        if tag not in FULL_FORMS:
            self._fail(element, "is read as a placeholder of size 0" if tag in PLACEHOLDER_FORMS
                       else "refuses the project: the tools know no such element")
        if tag == "NAMED":
            if get.get("name") not in NAMED_SIZES:
                self._fail(element, f"the tools know no NAMED {get.get('name')}")
            size = NAMED_SIZES[get["name"]]
            return size, size, size
        if tag == "STRUCT":
            size, extents = 0, (0, 0)
            for child in element:
                if child.tag != "Type":
                    self._fail(element, f"holds a <{child.tag}>: the tools read every child as "
                                        "a <Type>")
                old = self._old(element, child.get("id"))
                displacement = self._number(element, child.attrib, "displacement")
                blocklen = self._number(element, child.attrib, "blocklen")
                size += blocklen * old[0]
                extents = (displacement + blocklen * old[1], displacement + blocklen * old[2])
            return (size, *extents)
        old = self._old(element, get.get("oldType"))
        if tag == "CONTIGUOUS":
            count = self._number(element, get, "count")
            return count * old[0], count * old[1], count * old[2]
        if tag == "VECTOR":
            count = self._number(element, get, "count")
            blocklength = self._number(element, get, "blocklength")
            stride = self._number(element, get, "stride")
            if min(count, blocklength, stride) < 1:
                self._fail(element, "the tools take only positive count, blocklength, stride")
            return (count * blocklength * old[0], old[1] * stride * count,
                    old[2] * stride * blocklength)
        # SUBARRAY
        elements = selected = 1
        for dimension in element.findall("Dimension"):
            elements *= self._number(element, dimension.attrib, "size")
            selected *= self._number(element, dimension.attrib, "subsize")
        return selected * old[0], elements * old[1], elements * old[2]

    def size_and_extent(self, type_id):
        """(size, extent) as the tools compute them; both readings agree."""
        size, extent, other = self.types[type_id]
        if extent != other:
            raise AssertionError(f"{self.where} type {type_id}: the two readings of VECTOR "
                                 f"give extents {extent} and {other}")
        return size, extent

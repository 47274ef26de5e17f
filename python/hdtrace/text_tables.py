"""Structured arrays as aligned text, for what the commands print."""


def format_table(array, formats):
    """A structured array as aligned text columns (numbers right-aligned);
    formats: {column: format string} where "{}" is not enough."""
    columns = array.dtype.names
    cells = [list(columns)]
    for row in array.tolist():
        cells.append([formats.get(column, "{}").format(value) for column, value in zip(columns, row)])
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    numeric = [array.dtype[column].kind in "iuf" for column in columns]
    lines = []
    for line in cells:
        lines.append("  ".join(text.rjust(width) if is_number else text.ljust(width)
                               for text, width, is_number in zip(line, widths, numeric)).rstrip())
    return "\n".join(lines)

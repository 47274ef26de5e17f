"""Reads format/dialect.toml, checks it, and answers what the generators ask.

Every generator (scripts/generate-dialect.py, scripts/generate-wrappers.py)
and the tests that guard the definition load it through load(), so that a
definition that contradicts itself fails the build with the call and the key
that is wrong, before anything is generated from it.
"""
import fnmatch
import os
import re
import tomllib

DEFAULT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'dialect.toml')

CALL_KEYS = {
    'family', 'attributes', 'children', 'logged', 'sends_to', 'send_tag', 'receives_from',
    'receive_tag', 'persistent', 'probe', 'probes_message', 'receives_message', 'creates_request',
    'starts', 'completes', 'collective', 'operation', 'rooted_by', 'moves_data', 'io',
    'io_offset', 'rma', 'rma_target', 'rma_completes', 'creates_window', 'opens_file',
    'creates_communicator', 'frees_window', 'deletes_file', 'layer', 'written_on_failure',
}
# Role keys whose value names one of the call's attributes, and the value
# kind that attribute must have.
ATTRIBUTE_ROLES = {
    'sends_to': 'rank', 'send_tag': 'tag', 'receives_from': 'rank', 'receive_tag': 'tag',
    'probes_message': 'mid', 'receives_message': 'mid', 'creates_request': 'rid',
    'rooted_by': 'rank', 'rma_target': 'rank', 'creates_window': 'wid', 'opens_file': 'fid',
    'creates_communicator': 'cid', 'frees_window': 'wid',
    'deletes_file': 'fid', 'written_on_failure': 'integer',
}
CHOICES = {
    'logged': {'all-functions', 'never'},
    'starts': {'rid', 'For'},
    'completes': {'For'},
    'collective': {'one-to-all', 'all-to-one', 'all-to-all', 'prefix', 'neighbourhood'},
    'io': {'read', 'write'},
    'rma': {'put', 'get', 'accumulate', 'fetch-and-accumulate', 'compare-and-swap'},
    'rma_completes': {'target', 'all'},
    'layer': {'posix'},
}
CHILD_ELEMENTS = {'For', 'Data', 'Info'}
QUOTES = {"'", '"', ''}


class DefinitionError(Exception):
    pass


class Attribute:
    __slots__ = ('name', 'kind')

    def __init__(self, name, kind):
        self.name, self.kind = name, kind

    def __repr__(self):
        return f'{self.name}:{self.kind}'


def _attributes(where, texts, kinds):
    attributes = []
    for text in texts:
        name, colon, kind = text.partition(':')
        if not colon or not name or kind not in kinds:
            raise DefinitionError(f'{where}: attribute "{text}" is not name:kind with a kind '
                                  f'of [kinds]')
        if any(existing.name == name for existing in attributes):
            raise DefinitionError(f'{where}: attribute {name} appears twice')
        attributes.append(Attribute(name, kind))
    return attributes


class Call:
    """One call element: its tag, attributes and roles (the other keys)."""

    def __init__(self, tag, entry, dialect):
        where = f'{dialect.path}: [calls.{tag}]'
        unknown = set(entry) - CALL_KEYS
        if unknown:
            raise DefinitionError(f'{where}: unknown key(s) {sorted(unknown)}')
        for key in ('family', 'attributes'):
            if key not in entry:
                raise DefinitionError(f'{where}: no {key}')
        if entry['family'] not in dialect.families:
            raise DefinitionError(f'{where}: family "{entry["family"]}" is not in [families]')
        self.tag = tag
        self.attributes = _attributes(where, entry['attributes'], dialect.kinds)
        self.roles = {key: value for key, value in entry.items()
                      if key not in ('attributes',)}
        kinds = {attribute.name: attribute.kind for attribute in self.attributes}
        for key, kind in ATTRIBUTE_ROLES.items():
            if key in entry and kinds.get(entry[key]) != kind:
                raise DefinitionError(f'{where}: {key} = "{entry[key]}" names no attribute of '
                                      f'kind {kind}')
        for key, choices in CHOICES.items():
            if key in entry and entry[key] not in choices:
                raise DefinitionError(f'{where}: {key} = "{entry[key]}" is none of '
                                      f'{sorted(choices)}')
        for child in entry.get('children', []):
            if child not in CHILD_ELEMENTS:
                raise DefinitionError(f'{where}: child element {child} is none of '
                                      f'{sorted(CHILD_ELEMENTS)}')
        if entry.get('io_offset') not in (None, 'Data') and entry['io_offset'] not in kinds:
            raise DefinitionError(f'{where}: io_offset names no attribute')
        if entry.get('io_offset') == 'Data' and 'Data' not in entry.get('children', []):
            raise DefinitionError(f'{where}: io_offset is Data, but Data is not a child')
        if 'operation' in entry and 'collective' not in entry:
            raise DefinitionError(f'{where}: operation without collective')

    def __getattr__(self, key):
        if key in CALL_KEYS:
            return self.roles.get(key)
        raise AttributeError(key)

    @property
    def attribute_names(self):
        return [attribute.name for attribute in self.attributes]


GROUP_KEYS = {'about', 'layer', 'families', 'layers', 'tags', 'any_role', 'no_role', 'where', 'logged'}
# The layer of a call without a layer key.
MPI_LAYER = 'mpi'


class Group:
    """A named set of calls (for filters and scores): the calls matching
    every selector the definition gives."""

    def __init__(self, name, entry, dialect):
        where = f'{dialect.path}: [groups.{name}]'
        unknown = set(entry) - GROUP_KEYS
        if unknown:
            raise DefinitionError(f'{where}: unknown key(s) {sorted(unknown)}')
        if not entry.get('about'):
            raise DefinitionError(f'{where}: no about')
        if not re.fullmatch(r'[a-z][a-z0-9-]*', name):
            raise DefinitionError(f'{where}: a group name is lower-case letters, digits and -')
        if not set(entry) - {'about', 'layer'}:
            raise DefinitionError(f'{where}: selects nothing (no key but about)')
        for family in entry.get('families', []):
            if family not in dialect.families:
                raise DefinitionError(f'{where}: family "{family}" is not in [families]')
        for layer in entry.get('layers', []):
            if layer != MPI_LAYER and layer not in CHOICES['layer']:
                raise DefinitionError(f'{where}: layer "{layer}" is none of '
                                      f'{sorted(CHOICES["layer"] | {MPI_LAYER})}')
        for key in entry.get('any_role', []) + entry.get('no_role', []) + list(
                entry.get('where', {})):
            if key not in CALL_KEYS or key in ('family', 'attributes'):
                raise DefinitionError(f'{where}: "{key}" is no role key of a call')
        if not isinstance(entry.get('layer', False), bool):
            raise DefinitionError(f'{where}: layer is true or false')
        self.name = name
        self.about = entry['about']
        self.is_layer = entry.get('layer', False)
        self.selectors = {key: value for key, value in entry.items()
                          if key not in ('about', 'layer')}
        self.tags = [tag for tag, call in dialect.calls.items() if self.holds(call)]
        if not self.tags:
            raise DefinitionError(f'{where}: holds no call')

    def holds(self, call):
        chosen = self.selectors
        if 'families' in chosen and call.family not in chosen['families']:
            return False
        if 'layers' in chosen and (call.layer or MPI_LAYER) not in chosen['layers']:
            return False
        if 'tags' in chosen and not any(fnmatch.fnmatchcase(call.tag, pattern)
                                        for pattern in chosen['tags']):
            return False
        if 'any_role' in chosen and not any(call.roles.get(key) is not None
                                            for key in chosen['any_role']):
            return False
        if any(call.roles.get(key) is not None for key in chosen.get('no_role', [])):
            return False
        if any(call.roles.get(key) != value for key, value in chosen.get('where', {}).items()):
            return False
        if 'logged' in chosen and call.logged != chosen['logged']:
            return False
        return True


class InfoLine:
    """One .info line kind: its keyword and fields (name, kind, quote, optional)."""

    def __init__(self, keyword, entry, dialect):
        where = f'{dialect.path}: [info.{keyword}]'
        self.keyword = keyword
        self.fields = []
        for field in entry.get('fields', []):
            if set(field) - {'name', 'kind', 'quote', 'optional'} or 'name' not in field:
                raise DefinitionError(f'{where}: field {field} has unknown keys or no name')
            if field.get('kind') not in dialect.kinds or field.get('quote') not in QUOTES:
                raise DefinitionError(f'{where}: field {field["name"]}: unknown kind or quote')
            self.fields.append(dict(field, optional=field.get('optional', False)))
        if not self.fields:
            raise DefinitionError(f'{where}: no fields')


class Dialect:
    def __init__(self, path=DEFAULT_PATH):
        self.path = path
        try:
            with open(path, 'rb') as source:
                data = tomllib.load(source)
        except tomllib.TOMLDecodeError as error:
            raise DefinitionError(f'{path}: {error}') from None
        self.version = data.get('version')
        self.kinds = dict(data['kinds'])
        self.families = list(data['families']['order'])
        elements = dict(data['elements'])
        self.call_end = _attributes(f'{path}: [elements]', elements.pop('call_end'), self.kinds)
        self.elements = {name: _attributes(f'{path}: [elements.{name}]', entry['attributes'],
                                           self.kinds)
                         for name, entry in elements.items()}
        self.element_contents = {name: entry.get('contains', '')
                                 for name, entry in elements.items()}
        self.calls = {tag: Call(tag, entry, self) for tag, entry in data['calls'].items()}
        clash = set(self.calls) & set(self.elements)
        if clash:
            raise DefinitionError(f'{path}: {sorted(clash)} are both calls and elements')
        self.info = {keyword: InfoLine(keyword, entry, self)
                     for keyword, entry in data['info'].items()}
        self.groups = {name: Group(name, entry, self)
                       for name, entry in data.get('groups', {}).items()}

    def tags(self, **roles):
        """The tags, in definition order, of the calls whose roles have these
        values (True: the role is present at all)."""
        found = []
        for tag, call in self.calls.items():
            if all((call.roles.get(key) is not None) if wanted is True
                   else call.roles.get(key) == wanted for key, wanted in roles.items()):
                found.append(tag)
        return found


def load(path=DEFAULT_PATH):
    return Dialect(path)

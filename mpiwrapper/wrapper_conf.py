# wrapper_conf.py: what libhdtracempi logs for each function of functions.h
# (named after the original PIOsim wrapper's configuration). scripts/generate-wrappers.py reads it.
#
# Each entry of FUNCTIONS maps an MPI function to
#   tag       the element name (the function name without MPI_);
#   attrs     the attributes in the order of docs/format/calls.md, each (name, kind, C args...):
#             the kind says how the value is computed from the C arguments
#             (see KINDS); time and end follow automatically;
#   children  statements that write child elements (<For>, <Data>, <Info>);
#   status    the MPI_Status* parameter the wrapper reads (a local status
#             stands in for MPI_STATUS_IGNORE), available as statusSeen;
#   first     statements run before the call's element is opened (MPI_Pcontrol);
#   before / after / last
#             statements run before the MPI call, after it, and after the
#             attributes; they keep the registries up to date and run
#             whether or not the call is written. Names they declare
#             (const int64_t rid = ...) may be used by attrs and children;
#   call      replaces the PMPI call (for functions HDTrace defines itself);
#   init      the MPI call creates the trace (MPI_Init, MPI_Init_thread);
#   classic_only  no wrapper for the MPI-4 large-count form MPI_X_c;
#   always    statements run first, on every call, traced or not, before the
#             call's element begins (MPI_Finalize's clock measurement, which
#             every rank must take part in).
# An entry without attrs and children is an *ordinary* function: logged with
# time and end only while HDTRACE_ALL_FUNCTIONS=1. Functions in NOT_LOGGED
# run their hooks but write nothing.
#
# The generator fails when a function of functions.h has no entry, when an
# entry names a function functions.h lacks, or when an expression names an
# argument the prototype does not have.

# How each kind of attribute is computed: a C++ expression over the C
# arguments {0}, {1}, ..., and whether it is taken before the MPI call.
KINDS = {
    'int': ('static_cast<int64_t>({0})', 'after'),
    'string': ('{0}', 'after'),
    'size': ('call.dataSize({0}, {1})', 'after'),          # count, type: bytes, 64-bit
    'type': ('call.typeId({0})', 'after'),                 # type id (declared in .info)
    'comm': ('call.commId({0})', 'after'),                 # communicator id
    'commBefore': ('call.commId({0})', 'before'),          # ... of a handle the call frees
    'rank': ('call.worldRank({0}, {1})', 'after'),         # comm, rank: world rank of the peer
    'tag': ('hdtracempi::portableTag({0})', 'after'),
    'matchedRank': ('call.matchedRank(result, {0}, {1}, statusSeen)', 'after'),  # comm, source
    'matchedTag': ('call.matchedTag(result, {0}, statusSeen)', 'after'),         # tag
    'file': ('call.fileId({0})', 'after'),                 # file id
    'fileBefore': ('call.fileId({0})', 'before'),          # ... of a handle the call closes
    'fileName': ('call.fileIdOfName({0})', 'before'),      # file id of a name
    'position': ('call.individualPosition({0})', 'before'),  # individual pointer, bytes
    'sharedPosition': ('call.sharedPosition({0})', 'before'),
    'positionAfter': ('call.individualPosition({0})', 'after'),
    'whence': ('hdtracempi::whenceName({0})', 'after'),
}


def in_place(buf, used, alternative):
    """`used`, or `alternative` when the program passed MPI_IN_PLACE as buf:
    MPI then ignores `used`, and the wrapper must not read it."""
    return f'{buf} == MPI_IN_PLACE ? {alternative} : {used}'


NEW_REQUEST = 'const int64_t rid = call.requestCreated(result, request, false);'
NEW_PERSISTENT_REQUEST = 'const int64_t rid = call.requestCreated(result, request, true);'
INFO = 'call.infoChildren(info);'


def send(tag, rid=False):
    """Send, Bsend, ... and their nonblocking and persistent forms."""
    attrs = [('size', 'size', 'count', 'datatype'), ('count', 'int', 'count'),
             ('tid', 'type', 'datatype'), ('toRank', 'rank', 'comm', 'dest'),
             ('toTag', 'tag', 'tag'), ('cid', 'comm', 'comm')]
    if not rid:
        return dict(tag=tag, attrs=attrs)
    return dict(tag=tag, attrs=attrs + [('rid', 'int', 'rid')],
                after=NEW_PERSISTENT_REQUEST if tag.endswith('_init') else NEW_REQUEST)


def receive(tag, persistent=False):
    """Irecv and Recv_init: the requested source and tag."""
    return dict(tag=tag, attrs=[('fromRank', 'rank', 'comm', 'source'), ('fromTag', 'tag', 'tag'),
                                ('cid', 'comm', 'comm'), ('rid', 'int', 'rid')],
                after=NEW_PERSISTENT_REQUEST if persistent else NEW_REQUEST)


def root_attrs(comm='comm', root='root'):
    """The `root` of Gather, Gatherv, Scatter, Scatterv (and their
    nonblocking forms), then `rootRank` with the same world rank: the
    simulator reads rootRank for every rooted collective (docs/format/trace.md)."""
    return [('root', 'rank', comm, root), ('rootRank', 'rank', comm, root)]


def rooted_reduction(tag):
    return dict(tag=tag, attrs=[('size', 'size', 'count', 'datatype'), ('rootRank', 'rank', 'comm', 'root'),
                                ('cid', 'comm', 'comm'), ('count', 'int', 'count'),
                                ('tid', 'type', 'datatype')])


def reduction(tag):
    return dict(tag=tag, attrs=[('size', 'size', 'count', 'datatype'), ('cid', 'comm', 'comm'),
                                ('count', 'int', 'count'), ('tid', 'type', 'datatype')])


def completion(tag, update):
    """Wait*, Test*: one <For rid/> per request that completed in the call."""
    return dict(tag=tag, before=f'hdtracempi::Completions completions(call, {tag_requests[tag]});',
                after=update, children='call.completionChildren(completions);')


tag_requests = {
    'Wait': '1, request', 'Test': '1, request', 'Waitall': 'count, array_of_requests',
    'Testall': 'count, array_of_requests', 'Waitany': 'count, array_of_requests',
    'Testany': 'count, array_of_requests', 'Waitsome': 'incount, array_of_requests',
    'Testsome': 'incount, array_of_requests',
}

# File data access. `offset` is the explicit offset (etype units) or the
# individual file pointer before the call (bytes).
DATA = [('size', 'size', 'count', 'datatype'), ('count', 'int', 'count'), ('tid', 'type', 'datatype')]


def file_access(tag, offset):
    """File_read, File_write_at, ...: the calls with an offset."""
    return dict(tag=tag, attrs=[('fid', 'file', 'fh'), offset] + DATA)


def file_shared_access(tag):
    """File_read_shared, File_read_ordered, ...: the shared file pointer."""
    return dict(tag=tag, attrs=[('fid', 'file', 'fh')] + DATA)


def file_nonblocking(tag, offset=None):
    """File_iread, File_iwrite_at, ...: offset and data unless shared."""
    attrs = [('fid', 'file', 'fh'), ('rid', 'int', 'rid')]
    if offset:
        attrs += [offset] + DATA
    return dict(tag=tag, attrs=attrs, after=NEW_REQUEST)


def split_begin(tag, data_offset, attrs_offset=None):
    """*_begin of the split collectives: rid bound to the file and
    one <Data offset size count tid/> child. data_offset: 'individual' or
    'shared' (that file pointer before the call, in bytes), or an argument."""
    attrs = [('fid', 'file', 'fh'), ('rid', 'int', 'rid')]
    if attrs_offset:
        attrs += [('offset', 'int', attrs_offset)] + DATA
    before = ''
    if data_offset in ('individual', 'shared'):
        before = ('const int64_t dataOffset = call.writing() ? call.%sPosition(fh) : -1;' %
                  data_offset)
        data_offset = 'dataOffset'
    return dict(tag=tag, attrs=attrs, before=before,
                after='const int64_t rid = call.splitBegun(result, fh);',
                children=f'call.dataChild({data_offset}, count, datatype);')


# *_end is written as a Wait for the begin's rid (docs/format/trace.md).
SPLIT_END = dict(tag='Wait', after='const int64_t rid = call.splitEnded(fh);',
                 children='if (rid >= 0) call.forChild(rid);')


def comm_constructor(tag, old, new):
    """Comm_dup, Comm_split, ...: the input communicator and the new one."""
    return dict(tag=tag, attrs=[('cid', 'comm', old), ('newCid', 'int', 'newCid')],
                after=f'const int64_t newCid = call.commCreated(result, {new});')


def ordinary(tag, **hooks):
    return dict(tag=tag, **hooks)


def constructor(tag, arguments, inputs='1, &oldtype'):
    """Type constructors: the registry learns which of the program's types the
    new one is built from, and what MPI_Type_get_contents will say
    of it: arguments is the call of hdtracempi::TypeArguments that describes
    it, evaluated only after the constructor succeeded."""
    return dict(tag=tag, after=f'if (result == MPI_SUCCESS) call.typeConstructed(newtype, '
                               f'{inputs}, hdtracempi::TypeArguments::{arguments});')


FUNCTIONS = {
    # --- Environment
    'MPI_Init': ordinary('Init', init=True),
    'MPI_Init_thread': ordinary('Init_thread', init=True),
    'MPI_Finalize': ordinary('Finalize', last='call.finish();\nhdtracempi::stopTracing();',
                             always='hdtracempi::measureClocksAtFinalize();'),
    # Written, and every trace closed, before the call: MPI_Abort does not return.
    'MPI_Abort': ordinary('Abort', before='call.finish();\nhdtracempi::stopTracing();'),

    # --- Point-to-point
    'MPI_Send': send('Send'),
    'MPI_Bsend': send('Bsend'),
    'MPI_Ssend': send('Ssend'),
    'MPI_Rsend': send('Rsend'),
    'MPI_Recv': dict(tag='Recv', status='status',
                     attrs=[('fromRank', 'matchedRank', 'comm', 'source'),
                            ('fromTag', 'matchedTag', 'tag'), ('cid', 'comm', 'comm')]),
    'MPI_Sendrecv': dict(tag='Sendrecv', status='status',
                         attrs=[('size', 'size', 'sendcount', 'sendtype'),
                                ('toRank', 'rank', 'comm', 'dest'), ('toTag', 'tag', 'sendtag'),
                                ('fromRank', 'matchedRank', 'comm', 'source'),
                                ('fromTag', 'matchedTag', 'recvtag'), ('cid', 'comm', 'comm'),
                                ('count', 'int', 'sendcount'), ('tid', 'type', 'sendtype')]),
    'MPI_Sendrecv_replace': dict(tag='Sendrecv_replace', status='status',
                                 attrs=[('sendSize', 'size', 'count', 'datatype'),
                                        ('toRank', 'rank', 'comm', 'dest'),
                                        ('toTag', 'tag', 'sendtag'),
                                        ('fromRank', 'matchedRank', 'comm', 'source'),
                                        ('fromTag', 'matchedTag', 'recvtag'),
                                        ('cid', 'comm', 'comm'), ('count', 'int', 'count'),
                                        ('tid', 'type', 'datatype')]),
    'MPI_Isend': send('Isend', rid=True),
    'MPI_Ibsend': send('Ibsend', rid=True),
    'MPI_Issend': send('Issend', rid=True),
    'MPI_Irsend': send('Irsend', rid=True),
    'MPI_Irecv': receive('Irecv'),
    'MPI_Probe': ordinary('Probe'),
    'MPI_Iprobe': dict(tag='Iprobe', attrs=[('source', 'rank', 'comm', 'source'),
                                            ('tag', 'tag', 'tag'), ('cid', 'comm', 'comm')]),

    # --- Persistent requests: the attributes of Isend / Irecv, with the new rid.
    'MPI_Send_init': send('Send_init', rid=True),
    'MPI_Bsend_init': send('Bsend_init', rid=True),
    'MPI_Ssend_init': send('Ssend_init', rid=True),
    'MPI_Rsend_init': send('Rsend_init', rid=True),
    'MPI_Recv_init': receive('Recv_init', persistent=True),
    'MPI_Start': dict(tag='Start', attrs=[('rid', 'int', 'rid')],
                      before='const auto entry = call.requestEntry(request);\n'
                             'const int64_t rid = entry.rid;',
                      after='call.requestStarted(result, entry);'),
    'MPI_Startall': dict(tag='Startall',
                         before='hdtracempi::Completions completions(call, count, array_of_requests);',
                         after='completions.started(result);',
                         children='call.completionChildren(completions);'),
    'MPI_Request_free': dict(tag='Request_free',
                             before='call.requestFreed(call.requestEntry(request));'),

    # --- Completion: which requests were matched.
    'MPI_Wait': completion('Wait', 'completions.all(result, true, request);'),
    'MPI_Waitall': completion('Waitall', 'completions.all(result, true, array_of_requests);'),
    'MPI_Waitany': completion('Waitany', 'completions.one(result, *index, array_of_requests);'),
    'MPI_Waitsome': completion(
        'Waitsome', 'completions.some(result, *outcount, array_of_indices, array_of_requests);'),
    'MPI_Test': completion('Test', 'completions.all(result, *flag, request);'),
    'MPI_Testall': completion('Testall', 'completions.all(result, *flag, array_of_requests);'),
    'MPI_Testany': completion('Testany', 'completions.one(result, *index, array_of_requests);'),
    'MPI_Testsome': completion(
        'Testsome', 'completions.some(result, *outcount, array_of_indices, array_of_requests);'),

    # --- Collectives
    'MPI_Barrier': dict(tag='Barrier', attrs=[('cid', 'comm', 'comm')]),
    'MPI_Bcast': dict(tag='Bcast', attrs=[('size', 'size', 'count', 'datatype'),
                                          ('rootRank', 'rank', 'comm', 'root'),
                                          ('cid', 'comm', 'comm'), ('count', 'int', 'count'),
                                          ('tid', 'type', 'datatype')]),
    'MPI_Gather': dict(tag='Gather', attrs=[
        ('size', 'size', in_place('sendbuf', 'sendcount', 'recvcount'),
         in_place('sendbuf', 'sendtype', 'recvtype')),
        ('recvSize', 'size', 'recvcount', 'recvtype'),
        *root_attrs(), ('cid', 'comm', 'comm'),
        ('count', 'int', in_place('sendbuf', 'sendcount', 'recvcount')),
        ('tid', 'type', in_place('sendbuf', 'sendtype', 'recvtype')),
        ('recvCount', 'int', 'recvcount'), ('recvtid', 'type', 'recvtype')]),
    'MPI_Gatherv': dict(tag='Gatherv', attrs=[
        ('size', 'size', in_place('sendbuf', 'sendcount', 'call.ownEntry(comm, recvcounts)'),
         in_place('sendbuf', 'sendtype', 'recvtype')),
        *root_attrs(), ('cid', 'comm', 'comm'),
        ('count', 'int', in_place('sendbuf', 'sendcount', 'call.ownEntry(comm, recvcounts)')),
        ('tid', 'type', in_place('sendbuf', 'sendtype', 'recvtype'))]),
    'MPI_Scatter': dict(tag='Scatter', attrs=[
        ('size', 'size', 'sendcount', 'sendtype'),
        ('recvSize', 'size', in_place('recvbuf', 'recvcount', 'sendcount'),
         in_place('recvbuf', 'recvtype', 'sendtype')),
        *root_attrs(), ('cid', 'comm', 'comm'),
        ('count', 'int', 'sendcount'), ('tid', 'type', 'sendtype'),
        ('recvCount', 'int', in_place('recvbuf', 'recvcount', 'sendcount')),
        ('recvtid', 'type', in_place('recvbuf', 'recvtype', 'sendtype'))]),
    'MPI_Scatterv': dict(tag='Scatterv', attrs=[
        ('recvSize', 'size', in_place('recvbuf', 'recvcount', 'call.ownEntry(comm, sendcounts)'),
         in_place('recvbuf', 'recvtype', 'sendtype')),
        *root_attrs(), ('cid', 'comm', 'comm'),
        ('recvCount', 'int', in_place('recvbuf', 'recvcount', 'call.ownEntry(comm, sendcounts)')),
        ('recvtid', 'type', in_place('recvbuf', 'recvtype', 'sendtype'))]),
    'MPI_Allgather': dict(tag='Allgather', attrs=[
        ('size', 'size', in_place('sendbuf', 'sendcount', 'recvcount'),
         in_place('sendbuf', 'sendtype', 'recvtype')),
        ('recvSize', 'size', 'recvcount', 'recvtype'), ('cid', 'comm', 'comm'),
        ('count', 'int', in_place('sendbuf', 'sendcount', 'recvcount')),
        ('tid', 'type', in_place('sendbuf', 'sendtype', 'recvtype')),
        ('recvCount', 'int', 'recvcount'), ('recvtid', 'type', 'recvtype')]),
    'MPI_Allgatherv': dict(tag='Allgatherv', attrs=[
        ('size', 'size', in_place('sendbuf', 'sendcount', 'call.ownEntry(comm, recvcounts)'),
         in_place('sendbuf', 'sendtype', 'recvtype')),
        ('cid', 'comm', 'comm'),
        ('count', 'int', in_place('sendbuf', 'sendcount', 'call.ownEntry(comm, recvcounts)')),
        ('tid', 'type', in_place('sendbuf', 'sendtype', 'recvtype'))]),
    'MPI_Alltoall': dict(tag='Alltoall', attrs=[
        ('size', 'size', in_place('sendbuf', 'sendcount', 'recvcount'),
         in_place('sendbuf', 'sendtype', 'recvtype')),
        ('cid', 'comm', 'comm'),
        ('count', 'int', in_place('sendbuf', 'sendcount', 'recvcount')),
        ('tid', 'type', in_place('sendbuf', 'sendtype', 'recvtype'))]),
    'MPI_Alltoallv': dict(tag='Alltoallv', attrs=[('cid', 'comm', 'comm')]),
    'MPI_Reduce': rooted_reduction('Reduce'),
    'MPI_Allreduce': reduction('Allreduce'),
    'MPI_Reduce_scatter': dict(tag='Reduce_scatter', attrs=[('cid', 'comm', 'comm')]),
    'MPI_Scan': reduction('Scan'),
    'MPI_Exscan': reduction('Exscan'),

    # --- Communicators: ids in creation order.
    'MPI_Comm_dup': comm_constructor('Comm_dup', 'comm', 'newcomm'),
    'MPI_Comm_split': comm_constructor('Comm_split', 'comm', 'newcomm'),
    'MPI_Comm_create': comm_constructor('Comm_create', 'comm', 'newcomm'),
    'MPI_Cart_create': comm_constructor('Cart_create', 'old_comm', 'comm_cart'),
    'MPI_Graph_create': comm_constructor('Graph_create', 'comm_old', 'comm_graph'),
    'MPI_Intercomm_create': comm_constructor('Intercomm_create', 'local_comm', 'newintercomm'),
    'MPI_Intercomm_merge': comm_constructor('Intercomm_merge', 'intercomm', 'newintercomm'),
    'MPI_Comm_free': dict(tag='Comm_free', attrs=[('cid', 'commBefore', '*comm')],
                          before='call.commFreed(*comm);'),

    # --- Datatypes: decoded into .info when first used, not when made; ordinary
    # but for Type_vector and Type_commit.
    'MPI_Type_contiguous': constructor('Type_contiguous', 'contiguous(count)'),
    'MPI_Type_vector': dict(constructor('Type_vector', 'vector(count, blocklength, stride)'),
                            attrs=[('oldTid', 'type', 'oldtype')]),
    'MPI_Type_create_hvector': constructor('Type_create_hvector',
                                           'hvector(count, blocklength, stride)'),
    'MPI_Type_indexed': constructor(
        'Type_indexed', 'indexed(count, array_of_blocklengths, array_of_displacements)'),
    'MPI_Type_create_hindexed': constructor(
        'Type_create_hindexed', 'hindexed(count, array_of_blocklengths, array_of_displacements)'),
    'MPI_Type_create_indexed_block': constructor(
        'Type_create_indexed_block', 'indexedBlock(count, blocklength, array_of_displacements)'),
    'MPI_Type_create_hindexed_block': constructor(
        'Type_create_hindexed_block', 'hindexedBlock(count, blocklength, array_of_displacements)'),
    'MPI_Type_create_struct': constructor(
        'Type_create_struct', 'structure(count, array_of_block_lengths, array_of_displacements)',
        'count, array_of_types'),
    'MPI_Type_create_subarray': constructor(
        'Type_create_subarray',
        'subarray(ndims, size_array, subsize_array, start_array, order)'),
    'MPI_Type_create_darray': constructor(
        'Type_create_darray', 'darray(size, rank, ndims, gsize_array, distrib_array, darg_array, '
        'psize_array, order)'),
    'MPI_Type_create_resized': constructor('Type_create_resized', 'resized(lb, extent)'),
    'MPI_Type_dup': constructor('Type_dup', 'dup()', '1, &type'),
    'MPI_Type_commit': dict(tag='Type_commit', attrs=[('tid', 'type', '*type')]),
    'MPI_Type_free': ordinary('Type_free', before='call.typeFreed(*type);'),
    # Not in the MPI-2 list of the PIOsim design: wrapped so that the registry counts the references
    # to the program's types it hands back (TypeRegistry::contentsReturned).
    # Its large-count form has two more parameters, which the generator
    # cannot map onto these, so only the classic form is wrapped.
    'MPI_Type_get_contents': ordinary(
        'Type_get_contents',
        after='call.typeContentsReturned(result, datatype, array_of_datatypes);',
        classic_only=True),

    # --- Files
    'MPI_File_open': dict(tag='File_open', attrs=[('cid', 'comm', 'comm'), ('name', 'string', 'filename'),
                                                  ('flags', 'int', 'amode'), ('fid', 'int', 'fid')],
                          after='const int64_t fid = call.fileOpened(result, filename, fh);',
                          children=INFO),
    'MPI_File_close': dict(tag='File_close', attrs=[('fid', 'fileBefore', '*fh')],
                           before='call.fileClosed(*fh);'),
    'MPI_File_delete': dict(tag='File_delete', attrs=[('fid', 'fileName', 'filename')],
                            children=INFO),
    'MPI_File_set_size': dict(tag='File_set_size', attrs=[('fid', 'file', 'fh'), ('size', 'int', 'size')]),
    'MPI_File_preallocate': dict(tag='File_preallocate',
                                 attrs=[('fid', 'file', 'fh'), ('size', 'int', 'size')]),
    'MPI_File_get_size': dict(tag='File_get_size', attrs=[
        ('fid', 'file', 'fh'), ('size', 'int', 'result == MPI_SUCCESS ? *size : -1')]),
    'MPI_File_set_info': dict(tag='File_set_info', attrs=[('fid', 'file', 'fh')], children=INFO),
    'MPI_File_set_view': dict(tag='File_set_view', attrs=[
        ('fid', 'file', 'fh'), ('offset', 'int', 'disp'), ('etid', 'type', 'etype'),
        ('filetid', 'type', 'filetype'), ('representation', 'string', 'datarep')], children=INFO),
    'MPI_File_set_atomicity': dict(tag='File_set_atomicity',
                                   attrs=[('fid', 'file', 'fh'), ('flag', 'int', 'flag')]),
    'MPI_File_sync': dict(tag='File_sync', attrs=[('fid', 'file', 'fh')]),
    'MPI_File_seek': dict(tag='File_seek', attrs=[
        ('fid', 'file', 'fh'), ('relative-offset', 'int', 'offset'), ('whence', 'whence', 'whence'),
        ('offset', 'positionAfter', 'fh')]),
    # The pointer right after the collective seek, race-free (SharedSeek.hpp).
    'MPI_File_seek_shared': dict(tag='File_seek_shared', attrs=[
        ('fid', 'file', 'fh'), ('relative-offset', 'int', 'offset'), ('whence', 'whence', 'whence'),
        ('offset', 'int', 'hdtracempi::lastSharedSeekPosition()')],
        call='hdtracempi::seekShared(fh, offset, whence)'),
    'MPI_File_get_position': ordinary('File_get_position'),
    'MPI_File_get_position_shared': ordinary('File_get_position_shared'),

    'MPI_File_read': file_access('File_read', ('offset', 'position', 'fh')),
    'MPI_File_read_all': file_access('File_read_all', ('offset', 'position', 'fh')),
    'MPI_File_read_at': file_access('File_read_at', ('offset', 'int', 'offset')),
    'MPI_File_read_at_all': file_access('File_read_at_all', ('offset', 'int', 'offset')),
    'MPI_File_read_shared': file_shared_access('File_read_shared'),
    'MPI_File_read_ordered': file_shared_access('File_read_ordered'),
    'MPI_File_write': file_access('File_write', ('offset', 'position', 'fh')),
    'MPI_File_write_all': file_access('File_write_all', ('offset', 'position', 'fh')),
    'MPI_File_write_at': file_access('File_write_at', ('offset', 'int', 'offset')),
    'MPI_File_write_at_all': file_access('File_write_at_all', ('offset', 'int', 'offset')),
    'MPI_File_write_shared': file_shared_access('File_write_shared'),
    'MPI_File_write_ordered': file_shared_access('File_write_ordered'),

    'MPI_File_iread': file_nonblocking('File_iread', ('offset', 'position', 'fh')),
    'MPI_File_iread_at': file_nonblocking('File_iread_at', ('offset', 'int', 'offset')),
    'MPI_File_iread_shared': file_nonblocking('File_iread_shared'),
    'MPI_File_iwrite': file_nonblocking('File_iwrite', ('offset', 'position', 'fh')),
    'MPI_File_iwrite_at': file_nonblocking('File_iwrite_at', ('offset', 'int', 'offset')),
    'MPI_File_iwrite_shared': file_nonblocking('File_iwrite_shared'),

    'MPI_File_read_all_begin': split_begin('File_read_all_begin', 'individual'),
    'MPI_File_read_all_end': SPLIT_END,
    'MPI_File_read_at_all_begin': split_begin('File_read_at_all_begin', 'offset', 'offset'),
    'MPI_File_read_at_all_end': SPLIT_END,
    'MPI_File_read_ordered_begin': split_begin('File_read_ordered_begin', 'shared'),
    'MPI_File_read_ordered_end': SPLIT_END,
    'MPI_File_write_all_begin': split_begin('File_write_all_begin', 'individual'),
    'MPI_File_write_all_end': SPLIT_END,
    'MPI_File_write_at_all_begin': split_begin('File_write_at_all_begin', 'offset'),
    'MPI_File_write_at_all_end': SPLIT_END,
    'MPI_File_write_ordered_begin': split_begin('File_write_ordered_begin', 'shared'),
    'MPI_File_write_ordered_end': SPLIT_END,

    # --- HDTrace's own: nested calls of known depth.
    'MPI_hdT_Test_nested': dict(tag='hdT_Test_nested', attrs=[('depth', 'int', 'depth')],
                                call='hdtracempi::testNestedBody(depth)'),
}


# ---- Matched probes, one-sided communication, generalized requests (MPI-3.1;
# docs/format/mpi3.md, sections "Matched probes", "One-sided communication",
# "Generalized requests"). Kept in one block: added to KINDS and FUNCTIONS.

KINDS.update({
    'win': ('call.winId({0})', 'after'),                   # window id (declared in .info)
    'winBefore': ('call.winId({0})', 'before'),            # ... of a handle the call frees
    'target': ('call.targetRank({0}, {1})', 'after'),      # win, rank: world rank of the target
    'op': ('hdtracempi::opName({0})', 'after'),            # MPI_SUM, ... or user
    'lockType': ('hdtracempi::lockTypeName({0})', 'after'),  # shared / exclusive
    'groupRanks': ('call.worldRanksOf({0}).c_str()', 'after'),  # 'a;b;' world ranks of a group
})


def message_attrs(record):
    """What a matched probe learnt about its message (a hdtracempi::MessageRecord)."""
    return [('fromRank', 'int', f'{record}.fromRank'), ('fromTag', 'int', f'{record}.fromTag'),
            ('cid', 'int', f'{record}.cid'), ('mid', 'int', f'{record}.mid')]


def message_receive(tag, rid=False):
    """Mrecv, Imrecv: the matched message as its probe saw it (the call
    consumes the handle, so the record is taken before it)."""
    attrs = [('size', 'int', 'taken.size'), ('count', 'int', 'count'),
             ('tid', 'type', 'datatype')] + message_attrs('taken')
    entry = dict(tag=tag, attrs=attrs, before='const auto taken = call.messageTaken(message);')
    if rid:
        entry['attrs'] = attrs + [('rid', 'int', 'rid')]
        entry['after'] = NEW_REQUEST
    return entry


def win_constructor(tag, kind, size='size', disp_unit='disp_unit'):
    """Win_create, Win_allocate, ...: the new window's wid and its Win line."""
    attrs = [('cid', 'comm', 'comm'), ('wid', 'int', 'wid')]
    if kind != 'Dynamic':
        attrs += [('size', 'int', size), ('dispUnit', 'int', disp_unit)]
    return dict(tag=tag, attrs=attrs,
                after=f'const int64_t wid = call.winCreated(result, win, comm, {size}, {disp_unit}, '
                      f'hdtracempi::WinKind::{kind});')


def rma_data(tag, count='origin_count', datatype='origin_datatype', op=None, request=False):
    """Put, Get, the accumulates and their request forms: the origin side,
    the target as a world rank, the displacement as passed."""
    attrs = [('size', 'size', count, datatype), ('count', 'int', count), ('tid', 'type', datatype),
             ('targetRank', 'target', 'win', 'target_rank'), ('disp', 'int', 'target_disp'),
             ('wid', 'win', 'win')]
    if op:
        attrs.append(('op', 'op', op))
    if not request:
        return dict(tag=tag, attrs=attrs)
    return dict(tag=tag, attrs=attrs + [('rid', 'int', 'rid')], after=NEW_REQUEST)


def win_sync(tag, *more):
    return dict(tag=tag, attrs=[('wid', 'win', 'win')] + list(more))


# Get_accumulate with MPI_NO_OP ignores the origin: the result side is written.
GET_ACC_COUNT = 'op == MPI_NO_OP ? result_count : origin_count'
GET_ACC_TYPE = 'op == MPI_NO_OP ? result_datatype : origin_datatype'

FUNCTIONS.update({
    # --- Matched probes
    'MPI_Mprobe': dict(tag='Mprobe', status='status', attrs=message_attrs('probe'),
                       after='const auto probe = call.messageProbed(result, 1, source, tag, comm, '
                             'message, statusSeen);'),
    'MPI_Improbe': dict(tag='Improbe', status='status',
                        attrs=message_attrs('probe') + [('flag', 'int', 'probeFlag')],
                        after='const int probeFlag = result == MPI_SUCCESS && *flag;\n'
                              'const auto probe = call.messageProbed(result, probeFlag, source, '
                              'tag, comm, message, statusSeen);'),
    'MPI_Mrecv': message_receive('Mrecv'),
    'MPI_Imrecv': message_receive('Imrecv', rid=True),

    # --- One-sided communication: windows
    'MPI_Win_create': win_constructor('Win_create', 'Create'),
    'MPI_Win_allocate': win_constructor('Win_allocate', 'Allocate'),
    'MPI_Win_allocate_shared': win_constructor('Win_allocate_shared', 'Shared'),
    'MPI_Win_create_dynamic': win_constructor('Win_create_dynamic', 'Dynamic', '0', '1'),
    'MPI_Win_attach': win_sync('Win_attach', ('size', 'int', 'size')),
    'MPI_Win_detach': win_sync('Win_detach'),
    'MPI_Win_free': dict(tag='Win_free', attrs=[('wid', 'winBefore', '*win')],
                         before='call.winFreed(*win);'),

    # --- One-sided communication: data movement
    'MPI_Put': rma_data('Put'),
    'MPI_Get': rma_data('Get'),
    'MPI_Accumulate': rma_data('Accumulate', op='op'),
    'MPI_Get_accumulate': rma_data('Get_accumulate', GET_ACC_COUNT, GET_ACC_TYPE, op='op'),
    'MPI_Fetch_and_op': rma_data('Fetch_and_op', '1', 'datatype', op='op'),
    'MPI_Compare_and_swap': rma_data('Compare_and_swap', '1', 'datatype'),
    'MPI_Rput': rma_data('Rput', request=True),
    'MPI_Rget': rma_data('Rget', request=True),
    'MPI_Raccumulate': rma_data('Raccumulate', op='op', request=True),
    'MPI_Rget_accumulate': rma_data('Rget_accumulate', GET_ACC_COUNT, GET_ACC_TYPE, op='op',
                                    request=True),

    # --- One-sided communication: synchronisation
    'MPI_Win_fence': win_sync('Win_fence', ('assert', 'int', 'assertion')),
    'MPI_Win_lock': win_sync('Win_lock', ('targetRank', 'target', 'win', 'rank'),
                             ('lockType', 'lockType', 'lock_type')),
    'MPI_Win_unlock': win_sync('Win_unlock', ('targetRank', 'target', 'win', 'rank')),
    'MPI_Win_lock_all': win_sync('Win_lock_all'),
    'MPI_Win_unlock_all': win_sync('Win_unlock_all'),
    'MPI_Win_flush': win_sync('Win_flush', ('targetRank', 'target', 'win', 'rank')),
    'MPI_Win_flush_local': win_sync('Win_flush_local', ('targetRank', 'target', 'win', 'rank')),
    'MPI_Win_flush_all': win_sync('Win_flush_all'),
    'MPI_Win_flush_local_all': win_sync('Win_flush_local_all'),
    'MPI_Win_sync': win_sync('Win_sync'),
    'MPI_Win_post': win_sync('Win_post', ('ranks', 'groupRanks', 'group')),
    'MPI_Win_start': win_sync('Win_start', ('ranks', 'groupRanks', 'group')),
    'MPI_Win_complete': win_sync('Win_complete'),
    'MPI_Win_wait': win_sync('Win_wait'),
    'MPI_Win_test': win_sync('Win_test', ('flag', 'int', 'result == MPI_SUCCESS ? *flag : 0')),

    # --- Generalized requests: the rid of the request (completed by a Wait/Test <For>).
    'MPI_Grequest_start': dict(tag='Grequest_start', attrs=[('rid', 'int', 'rid')],
                               after=NEW_REQUEST),
    'MPI_Grequest_complete': dict(tag='Grequest_complete', attrs=[('rid', 'int', 'rid')],
                                  before='const int64_t rid = call.requestEntry(&request).rid;'),
})
# ---- end of matched probes, one-sided communication, generalized requests

# Wrapped for their hooks, never written.
NOT_LOGGED = {'MPI_Request_free'}


# --- MPI-3.1 calls (docs/format/mpi3.md, "MPI-3.1 calls"). Each is derived
# from the entry of the call it is written like, so
# that a change to the blocking form carries over to its other forms.

def written_like(blocking, tag, rid=False):
    """The attributes of FUNCTIONS[blocking] under another tag; with rid, the
    new request's rid after them (a nonblocking form: docs/format/mpi3.md)."""
    entry = dict(FUNCTIONS[blocking], tag=tag)
    attrs = list(entry.get('attrs', []))
    if rid:
        attrs.append(('rid', 'int', 'rid'))
        entry['after'] = '\n'.join(part for part in (entry.get('after', ''), NEW_REQUEST) if part)
    entry['attrs'] = attrs
    return entry


def with_root_rank(entry):
    """Gather, Gatherv, Scatter and Scatterv write rootRank right
    after root, with the same value. Added here unless the entry has it."""
    attrs = entry['attrs']
    names = [attr[0] for attr in attrs]
    if 'root' in names and 'rootRank' not in names:
        at = names.index('root')
        attrs = attrs[:at + 1] + [('rootRank',) + tuple(attrs[at][1:])] + attrs[at + 1:]
    return dict(entry, attrs=attrs)


NONBLOCKING_COLLECTIVES = ['Barrier', 'Bcast', 'Gather', 'Gatherv', 'Scatter', 'Scatterv',
                           'Allgather', 'Allgatherv', 'Alltoall', 'Alltoallv', 'Alltoallw',
                           'Reduce', 'Allreduce', 'Reduce_scatter', 'Reduce_scatter_block',
                           'Scan', 'Exscan']
ROOTED_GATHER_SCATTER = {'Gather', 'Gatherv', 'Scatter', 'Scatterv'}
# Neighbourhood collectives: written like these, on the topology communicator.
NEIGHBOR_COLLECTIVES = {'allgather': 'Allgather', 'allgatherv': 'Allgatherv',
                        'alltoall': 'Alltoall', 'alltoallv': 'Alltoallv', 'alltoallw': 'Alltoallw'}
NONBLOCKING_FILE_COLLECTIVES = ['File_read_all', 'File_read_at_all', 'File_write_all',
                                'File_write_at_all']

FUNCTIONS.update({
    'MPI_Reduce_scatter_block': written_like('MPI_Reduce_scatter', 'Reduce_scatter_block'),
    'MPI_Alltoallw': written_like('MPI_Alltoallv', 'Alltoallw'),
})
for _name in NONBLOCKING_COLLECTIVES:
    _iname = 'I' + _name.lower()  # MPI_Allreduce -> MPI_Iallreduce
    _entry = written_like('MPI_' + _name, _iname, rid=True)
    FUNCTIONS['MPI_' + _iname] = (with_root_rank(_entry) if _name in ROOTED_GATHER_SCATTER
                                  else _entry)
for _kind, _like in NEIGHBOR_COLLECTIVES.items():
    FUNCTIONS['MPI_Neighbor_' + _kind] = written_like('MPI_' + _like, 'Neighbor_' + _kind)
    FUNCTIONS['MPI_Ineighbor_' + _kind] = written_like('MPI_' + _like, 'Ineighbor_' + _kind,
                                                       rid=True)
for _name in NONBLOCKING_FILE_COLLECTIVES:
    _iname = _name.replace('File_', 'File_i', 1)
    FUNCTIONS['MPI_' + _iname] = written_like('MPI_' + _name, _iname, rid=True)


def file_query(tag, *attrs, **hooks):
    """File_get_*: fid, then what the call returned (-1 when it failed)."""
    return dict(tag=tag, attrs=[('fid', 'file', 'fh')] + list(attrs), **hooks)


def returned(pointer):
    return f'result == MPI_SUCCESS ? *{pointer} : -1'


FUNCTIONS.update({
    # --- Communicator constructors: like Comm_split.
    'MPI_Comm_split_type': comm_constructor('Comm_split_type', 'comm', 'newcomm'),
    'MPI_Comm_create_group': comm_constructor('Comm_create_group', 'comm', 'newcomm'),
    'MPI_Comm_dup_with_info': comm_constructor('Comm_dup_with_info', 'comm', 'newcomm'),
    'MPI_Cart_sub': comm_constructor('Cart_sub', 'comm', 'new_comm'),
    'MPI_Dist_graph_create': comm_constructor('Dist_graph_create', 'comm_old',
                                              'comm_dist_graph'),
    'MPI_Dist_graph_create_adjacent': comm_constructor('Dist_graph_create_adjacent', 'comm_old',
                                                       'comm_dist_graph'),
    # The new communicator is usable only once the request completed, but it
    # has the groups of comm: its Comm line is written at once, from comm's.
    'MPI_Comm_idup': dict(tag='Comm_idup', attrs=[('cid', 'comm', 'comm'),
                                                  ('newCid', 'int', 'newCid'),
                                                  ('rid', 'int', 'rid')],
                          after='const int64_t newCid = call.commDuplicated(result, comm, newcomm);\n'
                                + NEW_REQUEST),

    # --- File queries (docs/format/mpi3.md): fid, then the values returned.
    'MPI_File_get_atomicity': file_query('File_get_atomicity', ('flag', 'int', returned('flag'))),
    'MPI_File_get_amode': file_query('File_get_amode', ('flags', 'int', returned('amode'))),
    'MPI_File_get_view': file_query(
        'File_get_view', ('offset', 'int', returned('disp')),
        ('etid', 'type', 'result == MPI_SUCCESS ? *etype : MPI_DATATYPE_NULL'),
        ('filetid', 'type', 'result == MPI_SUCCESS ? *filetype : MPI_DATATYPE_NULL'),
        ('representation', 'string', 'result == MPI_SUCCESS ? datarep : ""')),
    'MPI_File_get_info': file_query('File_get_info',
                                    children='if (result == MPI_SUCCESS) call.infoChildren(*info_used);'),
    'MPI_File_get_group': file_query(
        'File_get_group', ('ranks', 'groupRanks', 'result == MPI_SUCCESS ? *group : MPI_GROUP_NULL')),
    'MPI_File_get_byte_offset': file_query('File_get_byte_offset', ('offset', 'int', 'offset'),
                                           ('byteOffset', 'int', returned('disp'))),
    'MPI_File_get_type_extent': file_query('File_get_type_extent', ('tid', 'type', 'datatype'),
                                           ('extent', 'int', returned('extent'))),

    # --- The profiling interface's switch: Pcontrol(0) stops writing after
    # its own element, any other level resumes before its element.
    'MPI_Pcontrol': dict(tag='Pcontrol', attrs=[('level', 'int', 'level')],
                         first='if (level != 0) call.resumeWriting();',
                         last='if (level == 0) call.pauseWriting();'),
})

# wrapper_conf.py: how libhdtracempi computes what it logs for each function
# of functions.h. scripts/generate-wrappers.py reads it.
#
# What is written (each call's tag, its attributes in order with their kinds,
# its children and its role) is defined once, in format/dialect.toml; this
# file says how each attribute's value is computed from the C arguments, and
# the generator fails the build when an entry writes other attributes, or in
# another order, than the definition says. Adding a call: its entry in
# format/dialect.toml, its prototype in functions.h, its entry here.
#
# Each entry of FUNCTIONS maps an MPI function to
#   tag       the element name, only where it is not the function's name
#             without MPI_ (the split collectives' ends are written as Wait);
#   attrs     the attributes in the definition's order, each (name, kind, C args...):
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


def send(rid=False, persistent=False):
    """Send, Bsend, ... and their nonblocking and persistent forms; with rid,
    the request the call creates (persistent: Send_init, ...)."""
    attrs = [('size', 'size', 'count', 'datatype'), ('count', 'int', 'count'),
             ('tid', 'type', 'datatype'), ('toRank', 'rank', 'comm', 'dest'),
             ('toTag', 'tag', 'tag'), ('cid', 'comm', 'comm')]
    if not rid:
        return dict(attrs=attrs)
    return dict(attrs=attrs + [('rid', 'int', 'rid')],
                after=NEW_PERSISTENT_REQUEST if persistent else NEW_REQUEST)


def receive(persistent=False):
    """Irecv and Recv_init: the requested source and tag."""
    return dict(attrs=[('fromRank', 'rank', 'comm', 'source'), ('fromTag', 'tag', 'tag'),
                                ('cid', 'comm', 'comm'), ('rid', 'int', 'rid')],
                after=NEW_PERSISTENT_REQUEST if persistent else NEW_REQUEST)


def root_attrs(comm='comm', root='root'):
    """The `root` of Gather, Gatherv, Scatter, Scatterv (and their
    nonblocking forms), then `rootRank` with the same world rank: the
    simulator reads rootRank for every rooted collective (docs/format/trace.md)."""
    return [('root', 'rank', comm, root), ('rootRank', 'rank', comm, root)]


def rooted_reduction():
    return dict(attrs=[('size', 'size', 'count', 'datatype'), ('rootRank', 'rank', 'comm', 'root'),
                                ('cid', 'comm', 'comm'), ('count', 'int', 'count'),
                                ('tid', 'type', 'datatype')])


def reduction():
    return dict(attrs=[('size', 'size', 'count', 'datatype'), ('cid', 'comm', 'comm'),
                                ('count', 'int', 'count'), ('tid', 'type', 'datatype')])


def completion(requests, update):
    """Wait*, Test*: one <For rid/> per request that completed in the call.
    requests: the count and the array of the call's requests."""
    return dict(before=f'hdtracempi::Completions completions(call, {requests});',
                after=update, children='call.completionChildren(completions);')


# File data access. `offset` is the explicit offset (etype units) or the
# individual file pointer before the call (bytes).
DATA = [('size', 'size', 'count', 'datatype'), ('count', 'int', 'count'), ('tid', 'type', 'datatype')]
# The offset attribute of the two kinds of access: the individual file
# pointer before the call (bytes), or the explicit offset (etype units).
AT_POINTER = ('offset', 'position', 'fh')
AT_OFFSET = ('offset', 'int', 'offset')


def file_access(offset):
    """File_read, File_write_at, ...: the calls with an offset."""
    return dict(attrs=[('fid', 'file', 'fh'), offset] + DATA)


def file_shared_access():
    """File_read_shared, File_read_ordered, ...: the shared file pointer."""
    return dict(attrs=[('fid', 'file', 'fh')] + DATA)


def file_nonblocking(offset=None):
    """File_iread, File_iwrite_at, ...: offset and data unless shared."""
    attrs = [('fid', 'file', 'fh'), ('rid', 'int', 'rid')]
    if offset:
        attrs += [offset] + DATA
    return dict(attrs=attrs, after=NEW_REQUEST)


def split_begin(data_offset, attrs_offset=None):
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
    return dict(attrs=attrs, before=before,
                after='const int64_t rid = call.splitBegun(result, fh);',
                children=f'call.dataChild({data_offset}, count, datatype);')


# *_end is written as a Wait for the begin's rid (docs/format/trace.md).
SPLIT_END = dict(tag='Wait', after='const int64_t rid = call.splitEnded(fh);',
                 children='if (rid >= 0) call.forChild(rid);')


def comm_constructor(old, new):
    """Comm_dup, Comm_split, ...: the input communicator and the new one."""
    return dict(attrs=[('cid', 'comm', old), ('newCid', 'int', 'newCid')],
                after=f'const int64_t newCid = call.commCreated(result, {new});')


def ordinary(**hooks):
    return dict(**hooks)


def constructor(arguments, inputs='1, &oldtype'):
    """Type constructors: the registry learns which of the program's types the
    new one is built from, and what MPI_Type_get_contents will say
    of it: arguments is the call of hdtracempi::TypeArguments that describes
    it, evaluated only after the constructor succeeded."""
    return dict(after=f'if (result == MPI_SUCCESS) call.typeConstructed(newtype, '
                               f'{inputs}, hdtracempi::TypeArguments::{arguments});')


FUNCTIONS = {
    # --- Environment
    'MPI_Init': ordinary(init=True),
    'MPI_Init_thread': ordinary(init=True),
    'MPI_Finalize': ordinary(last='call.finish();\nhdtracempi::stopTracing();',
                             always='hdtracempi::measureClocksAtFinalize();'),
    # Written, and every trace closed, before the call: MPI_Abort does not return.
    'MPI_Abort': ordinary(before='call.finish();\nhdtracempi::stopTracing();'),

    # --- Point-to-point
    'MPI_Send': send(),
    'MPI_Bsend': send(),
    'MPI_Ssend': send(),
    'MPI_Rsend': send(),
    'MPI_Recv': dict(status='status',
                     attrs=[('fromRank', 'matchedRank', 'comm', 'source'),
                            ('fromTag', 'matchedTag', 'tag'), ('cid', 'comm', 'comm')]),
    'MPI_Sendrecv': dict(status='status',
                         attrs=[('size', 'size', 'sendcount', 'sendtype'),
                                ('toRank', 'rank', 'comm', 'dest'), ('toTag', 'tag', 'sendtag'),
                                ('fromRank', 'matchedRank', 'comm', 'source'),
                                ('fromTag', 'matchedTag', 'recvtag'), ('cid', 'comm', 'comm'),
                                ('count', 'int', 'sendcount'), ('tid', 'type', 'sendtype')]),
    'MPI_Sendrecv_replace': dict(status='status',
                                 attrs=[('sendSize', 'size', 'count', 'datatype'),
                                        ('toRank', 'rank', 'comm', 'dest'),
                                        ('toTag', 'tag', 'sendtag'),
                                        ('fromRank', 'matchedRank', 'comm', 'source'),
                                        ('fromTag', 'matchedTag', 'recvtag'),
                                        ('cid', 'comm', 'comm'), ('count', 'int', 'count'),
                                        ('tid', 'type', 'datatype')]),
    'MPI_Isend': send(rid=True),
    'MPI_Ibsend': send(rid=True),
    'MPI_Issend': send(rid=True),
    'MPI_Irsend': send(rid=True),
    'MPI_Irecv': receive(),
    'MPI_Probe': ordinary(),
    'MPI_Iprobe': dict(attrs=[('source', 'rank', 'comm', 'source'),
                                            ('tag', 'tag', 'tag'), ('cid', 'comm', 'comm')]),

    # --- Persistent requests: the attributes of Isend / Irecv, with the new rid.
    'MPI_Send_init': send(rid=True, persistent=True),
    'MPI_Bsend_init': send(rid=True, persistent=True),
    'MPI_Ssend_init': send(rid=True, persistent=True),
    'MPI_Rsend_init': send(rid=True, persistent=True),
    'MPI_Recv_init': receive(persistent=True),
    'MPI_Start': dict(attrs=[('rid', 'int', 'rid')],
                      before='const auto entry = call.requestEntry(request);\n'
                             'const int64_t rid = entry.written ? entry.rid : -1;',
                      after='call.requestStarted(result, entry);'),
    'MPI_Startall': dict(before='hdtracempi::Completions completions(call, count, array_of_requests);',
                         after='completions.started(result);',
                         children='call.completionChildren(completions);'),
    'MPI_Request_free': dict(before='call.requestFreed(call.requestEntry(request));'),

    # --- Completion: which requests were matched.
    'MPI_Wait': completion('1, request',
                           'completions.all(result, true, request);'),
    'MPI_Waitall': completion('count, array_of_requests',
                              'completions.all(result, true, array_of_requests);'),
    'MPI_Waitany': completion('count, array_of_requests',
                              'completions.one(result, *index, array_of_requests);'),
    'MPI_Waitsome': completion('incount, array_of_requests',
                               'completions.some(result, *outcount, array_of_indices, '
                               'array_of_requests);'),
    'MPI_Test': completion('1, request',
                           'completions.all(result, *flag, request);'),
    'MPI_Testall': completion('count, array_of_requests',
                              'completions.all(result, *flag, array_of_requests);'),
    'MPI_Testany': completion('count, array_of_requests',
                              'completions.one(result, *index, array_of_requests);'),
    'MPI_Testsome': completion('incount, array_of_requests',
                               'completions.some(result, *outcount, array_of_indices, '
                               'array_of_requests);'),

    # --- Collectives
    'MPI_Barrier': dict(attrs=[('cid', 'comm', 'comm')]),
    'MPI_Bcast': dict(attrs=[('size', 'size', 'count', 'datatype'),
                                          ('rootRank', 'rank', 'comm', 'root'),
                                          ('cid', 'comm', 'comm'), ('count', 'int', 'count'),
                                          ('tid', 'type', 'datatype')]),
    'MPI_Gather': dict(attrs=[
        ('size', 'size', in_place('sendbuf', 'sendcount', 'recvcount'),
         in_place('sendbuf', 'sendtype', 'recvtype')),
        ('recvSize', 'size', 'recvcount', 'recvtype'),
        *root_attrs(), ('cid', 'comm', 'comm'),
        ('count', 'int', in_place('sendbuf', 'sendcount', 'recvcount')),
        ('tid', 'type', in_place('sendbuf', 'sendtype', 'recvtype')),
        ('recvCount', 'int', 'recvcount'), ('recvtid', 'type', 'recvtype')]),
    'MPI_Gatherv': dict(attrs=[
        ('size', 'size', in_place('sendbuf', 'sendcount', 'call.ownEntry(comm, recvcounts)'),
         in_place('sendbuf', 'sendtype', 'recvtype')),
        *root_attrs(), ('cid', 'comm', 'comm'),
        ('count', 'int', in_place('sendbuf', 'sendcount', 'call.ownEntry(comm, recvcounts)')),
        ('tid', 'type', in_place('sendbuf', 'sendtype', 'recvtype'))]),
    'MPI_Scatter': dict(attrs=[
        ('size', 'size', 'sendcount', 'sendtype'),
        ('recvSize', 'size', in_place('recvbuf', 'recvcount', 'sendcount'),
         in_place('recvbuf', 'recvtype', 'sendtype')),
        *root_attrs(), ('cid', 'comm', 'comm'),
        ('count', 'int', 'sendcount'), ('tid', 'type', 'sendtype'),
        ('recvCount', 'int', in_place('recvbuf', 'recvcount', 'sendcount')),
        ('recvtid', 'type', in_place('recvbuf', 'recvtype', 'sendtype'))]),
    'MPI_Scatterv': dict(attrs=[
        ('recvSize', 'size', in_place('recvbuf', 'recvcount', 'call.ownEntry(comm, sendcounts)'),
         in_place('recvbuf', 'recvtype', 'sendtype')),
        *root_attrs(), ('cid', 'comm', 'comm'),
        ('recvCount', 'int', in_place('recvbuf', 'recvcount', 'call.ownEntry(comm, sendcounts)')),
        ('recvtid', 'type', in_place('recvbuf', 'recvtype', 'sendtype'))]),
    'MPI_Allgather': dict(attrs=[
        ('size', 'size', in_place('sendbuf', 'sendcount', 'recvcount'),
         in_place('sendbuf', 'sendtype', 'recvtype')),
        ('recvSize', 'size', 'recvcount', 'recvtype'), ('cid', 'comm', 'comm'),
        ('count', 'int', in_place('sendbuf', 'sendcount', 'recvcount')),
        ('tid', 'type', in_place('sendbuf', 'sendtype', 'recvtype')),
        ('recvCount', 'int', 'recvcount'), ('recvtid', 'type', 'recvtype')]),
    'MPI_Allgatherv': dict(attrs=[
        ('size', 'size', in_place('sendbuf', 'sendcount', 'call.ownEntry(comm, recvcounts)'),
         in_place('sendbuf', 'sendtype', 'recvtype')),
        ('cid', 'comm', 'comm'),
        ('count', 'int', in_place('sendbuf', 'sendcount', 'call.ownEntry(comm, recvcounts)')),
        ('tid', 'type', in_place('sendbuf', 'sendtype', 'recvtype'))]),
    'MPI_Alltoall': dict(attrs=[
        ('size', 'size', in_place('sendbuf', 'sendcount', 'recvcount'),
         in_place('sendbuf', 'sendtype', 'recvtype')),
        ('cid', 'comm', 'comm'),
        ('count', 'int', in_place('sendbuf', 'sendcount', 'recvcount')),
        ('tid', 'type', in_place('sendbuf', 'sendtype', 'recvtype'))]),
    'MPI_Alltoallv': dict(attrs=[('cid', 'comm', 'comm')]),
    'MPI_Reduce': rooted_reduction(),
    'MPI_Allreduce': reduction(),
    'MPI_Reduce_scatter': dict(attrs=[('cid', 'comm', 'comm')]),
    'MPI_Scan': reduction(),
    'MPI_Exscan': reduction(),

    # --- Communicators: ids in creation order.
    'MPI_Comm_dup': comm_constructor('comm', 'newcomm'),
    'MPI_Comm_split': comm_constructor('comm', 'newcomm'),
    'MPI_Comm_create': comm_constructor('comm', 'newcomm'),
    'MPI_Cart_create': comm_constructor('old_comm', 'comm_cart'),
    'MPI_Graph_create': comm_constructor('comm_old', 'comm_graph'),
    'MPI_Intercomm_create': comm_constructor('local_comm', 'newintercomm'),
    'MPI_Intercomm_merge': comm_constructor('intercomm', 'newintercomm'),
    'MPI_Comm_free': dict(attrs=[('cid', 'commBefore', '*comm')],
                          before='call.commFreed(*comm);'),

    # --- Datatypes: decoded into .info when first used, not when made; ordinary
    # but for Type_vector and Type_commit.
    'MPI_Type_contiguous': constructor('contiguous(count)'),
    'MPI_Type_vector': dict(constructor('vector(count, blocklength, stride)'),
                            attrs=[('oldTid', 'type', 'oldtype')]),
    'MPI_Type_create_hvector': constructor('hvector(count, blocklength, stride)'),
    'MPI_Type_indexed': constructor('indexed(count, array_of_blocklengths, array_of_displacements)'),
    'MPI_Type_create_hindexed': constructor('hindexed(count, array_of_blocklengths, array_of_displacements)'),
    'MPI_Type_create_indexed_block': constructor('indexedBlock(count, blocklength, array_of_displacements)'),
    'MPI_Type_create_hindexed_block': constructor('hindexedBlock(count, blocklength, array_of_displacements)'),
    'MPI_Type_create_struct': constructor('structure(count, array_of_block_lengths, array_of_displacements)',
        'count, array_of_types'),
    'MPI_Type_create_subarray': constructor('subarray(ndims, size_array, subsize_array, start_array, order)'),
    'MPI_Type_create_darray': constructor('darray(size, rank, ndims, gsize_array, distrib_array, darg_array, '
        'psize_array, order)'),
    'MPI_Type_create_resized': constructor('resized(lb, extent)'),
    'MPI_Type_dup': constructor('dup()', '1, &type'),
    'MPI_Type_commit': dict(attrs=[('tid', 'type', '*type')]),
    'MPI_Type_free': ordinary(before='call.typeFreed(*type);'),
    # Not in the MPI-2 list of the PIOsim design: wrapped so that the registry counts the references
    # to the program's types it hands back (TypeRegistry::contentsReturned).
    # Its large-count form has two more parameters, which the generator
    # cannot map onto these, so only the classic form is wrapped.
    'MPI_Type_get_contents': ordinary(after='call.typeContentsReturned(result, datatype, array_of_datatypes);',
        classic_only=True),

    # --- Files
    'MPI_File_open': dict(attrs=[('cid', 'comm', 'comm'), ('name', 'string', 'filename'),
                                                  ('flags', 'int', 'amode'), ('fid', 'int', 'fid')],
                          after='const int64_t fid = call.fileOpened(result, filename, fh);',
                          children=INFO),
    'MPI_File_close': dict(attrs=[('fid', 'fileBefore', '*fh')],
                           before='call.fileClosed(*fh);'),
    'MPI_File_delete': dict(attrs=[('fid', 'fileName', 'filename')],
                            children=INFO),
    'MPI_File_set_size': dict(attrs=[('fid', 'file', 'fh'), ('size', 'int', 'size')]),
    'MPI_File_preallocate': dict(attrs=[('fid', 'file', 'fh'), ('size', 'int', 'size')]),
    'MPI_File_get_size': dict(attrs=[
        ('fid', 'file', 'fh'), ('size', 'int', 'result == MPI_SUCCESS ? *size : -1')]),
    'MPI_File_set_info': dict(attrs=[('fid', 'file', 'fh')], children=INFO),
    'MPI_File_set_view': dict(attrs=[
        ('fid', 'file', 'fh'), ('offset', 'int', 'disp'), ('etid', 'type', 'etype'),
        ('filetid', 'type', 'filetype'), ('representation', 'string', 'datarep')], children=INFO),
    'MPI_File_set_atomicity': dict(attrs=[('fid', 'file', 'fh'), ('flag', 'int', 'flag')]),
    'MPI_File_sync': dict(attrs=[('fid', 'file', 'fh')]),
    'MPI_File_seek': dict(attrs=[
        ('fid', 'file', 'fh'), ('relative-offset', 'int', 'offset'), ('whence', 'whence', 'whence'),
        ('offset', 'positionAfter', 'fh')]),
    # The pointer right after the collective seek, race-free (SharedSeek.hpp).
    'MPI_File_seek_shared': dict(attrs=[
        ('fid', 'file', 'fh'), ('relative-offset', 'int', 'offset'), ('whence', 'whence', 'whence'),
        ('offset', 'int', 'hdtracempi::lastSharedSeekPosition()')],
        call='hdtracempi::seekShared(fh, offset, whence)'),
    'MPI_File_get_position': ordinary(),
    'MPI_File_get_position_shared': ordinary(),

    'MPI_File_read': file_access(AT_POINTER),
    'MPI_File_read_all': file_access(AT_POINTER),
    'MPI_File_read_at': file_access(AT_OFFSET),
    'MPI_File_read_at_all': file_access(AT_OFFSET),
    'MPI_File_read_shared': file_shared_access(),
    'MPI_File_read_ordered': file_shared_access(),
    'MPI_File_write': file_access(AT_POINTER),
    'MPI_File_write_all': file_access(AT_POINTER),
    'MPI_File_write_at': file_access(AT_OFFSET),
    'MPI_File_write_at_all': file_access(AT_OFFSET),
    'MPI_File_write_shared': file_shared_access(),
    'MPI_File_write_ordered': file_shared_access(),

    'MPI_File_iread': file_nonblocking(AT_POINTER),
    'MPI_File_iread_at': file_nonblocking(AT_OFFSET),
    'MPI_File_iread_shared': file_nonblocking(),
    'MPI_File_iwrite': file_nonblocking(AT_POINTER),
    'MPI_File_iwrite_at': file_nonblocking(AT_OFFSET),
    'MPI_File_iwrite_shared': file_nonblocking(),

    'MPI_File_read_all_begin': split_begin('individual'),
    'MPI_File_read_all_end': SPLIT_END,
    'MPI_File_read_at_all_begin': split_begin('offset', 'offset'),
    'MPI_File_read_at_all_end': SPLIT_END,
    'MPI_File_read_ordered_begin': split_begin('shared'),
    'MPI_File_read_ordered_end': SPLIT_END,
    'MPI_File_write_all_begin': split_begin('individual'),
    'MPI_File_write_all_end': SPLIT_END,
    'MPI_File_write_at_all_begin': split_begin('offset'),
    'MPI_File_write_at_all_end': SPLIT_END,
    'MPI_File_write_ordered_begin': split_begin('shared'),
    'MPI_File_write_ordered_end': SPLIT_END,

    # --- HDTrace's own: nested calls of known depth.
    'MPI_hdT_Test_nested': dict(attrs=[('depth', 'int', 'depth')],
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


def message_receive(rid=False):
    """Mrecv, Imrecv: the matched message as its probe saw it (the call
    consumes the handle, so the record is taken before it)."""
    attrs = [('size', 'int', 'taken.size'), ('count', 'int', 'count'),
             ('tid', 'type', 'datatype')] + message_attrs('taken')
    entry = dict(attrs=attrs, before='const auto taken = call.messageTaken(message);')
    if rid:
        entry['attrs'] = attrs + [('rid', 'int', 'rid')]
        entry['after'] = NEW_REQUEST
    return entry


def win_constructor(kind, size='size', disp_unit='disp_unit'):
    """Win_create, Win_allocate, ...: the new window's wid and its Win line."""
    attrs = [('cid', 'comm', 'comm'), ('wid', 'int', 'wid')]
    if kind != 'Dynamic':
        attrs += [('size', 'int', size), ('dispUnit', 'int', disp_unit)]
    return dict(attrs=attrs,
                after=f'const int64_t wid = call.winCreated(result, win, comm, {size}, {disp_unit}, '
                      f'hdtracempi::WinKind::{kind});')


def rma_data(count='origin_count', datatype='origin_datatype', op=None, request=False):
    """Put, Get, the accumulates and their request forms: the origin side,
    the target as a world rank, the displacement as passed."""
    attrs = [('size', 'size', count, datatype), ('count', 'int', count), ('tid', 'type', datatype),
             ('targetRank', 'target', 'win', 'target_rank'), ('disp', 'int', 'target_disp'),
             ('wid', 'win', 'win')]
    if op:
        attrs.append(('op', 'op', op))
    if not request:
        return dict(attrs=attrs)
    return dict(attrs=attrs + [('rid', 'int', 'rid')], after=NEW_REQUEST)


def win_sync(*more):
    return dict(attrs=[('wid', 'win', 'win')] + list(more))


# Get_accumulate with MPI_NO_OP ignores the origin: the result side is written.
GET_ACC_COUNT = 'op == MPI_NO_OP ? result_count : origin_count'
GET_ACC_TYPE = 'op == MPI_NO_OP ? result_datatype : origin_datatype'

FUNCTIONS.update({
    # --- Matched probes
    'MPI_Mprobe': dict(status='status', attrs=message_attrs('probe'),
                       after='const auto probe = call.messageProbed(result, 1, source, tag, comm, '
                             'message, statusSeen);'),
    'MPI_Improbe': dict(status='status',
                        attrs=message_attrs('probe') + [('flag', 'int', 'probeFlag')],
                        after='const int probeFlag = result == MPI_SUCCESS && *flag;\n'
                              'const auto probe = call.messageProbed(result, probeFlag, source, '
                              'tag, comm, message, statusSeen);'),
    'MPI_Mrecv': message_receive(),
    'MPI_Imrecv': message_receive(rid=True),

    # --- One-sided communication: windows
    'MPI_Win_create': win_constructor('Create'),
    'MPI_Win_allocate': win_constructor('Allocate'),
    'MPI_Win_allocate_shared': win_constructor('Shared'),
    'MPI_Win_create_dynamic': win_constructor('Dynamic', '0', '1'),
    'MPI_Win_attach': win_sync(('size', 'int', 'size')),
    'MPI_Win_detach': win_sync(),
    'MPI_Win_free': dict(attrs=[('wid', 'winBefore', '*win')],
                         before='call.winFreed(*win);'),

    # --- One-sided communication: data movement
    'MPI_Put': rma_data(),
    'MPI_Get': rma_data(),
    'MPI_Accumulate': rma_data(op='op'),
    'MPI_Get_accumulate': rma_data(GET_ACC_COUNT, GET_ACC_TYPE, op='op'),
    'MPI_Fetch_and_op': rma_data('1', 'datatype', op='op'),
    'MPI_Compare_and_swap': rma_data('1', 'datatype'),
    'MPI_Rput': rma_data(request=True),
    'MPI_Rget': rma_data(request=True),
    'MPI_Raccumulate': rma_data(op='op', request=True),
    'MPI_Rget_accumulate': rma_data(GET_ACC_COUNT, GET_ACC_TYPE, op='op',
                                    request=True),

    # --- One-sided communication: synchronisation
    'MPI_Win_fence': win_sync(('assert', 'int', 'assertion')),
    'MPI_Win_lock': win_sync(('targetRank', 'target', 'win', 'rank'),
                             ('lockType', 'lockType', 'lock_type')),
    'MPI_Win_unlock': win_sync(('targetRank', 'target', 'win', 'rank')),
    'MPI_Win_lock_all': win_sync(),
    'MPI_Win_unlock_all': win_sync(),
    'MPI_Win_flush': win_sync(('targetRank', 'target', 'win', 'rank')),
    'MPI_Win_flush_local': win_sync(('targetRank', 'target', 'win', 'rank')),
    'MPI_Win_flush_all': win_sync(),
    'MPI_Win_flush_local_all': win_sync(),
    'MPI_Win_sync': win_sync(),
    'MPI_Win_post': win_sync(('ranks', 'groupRanks', 'group')),
    'MPI_Win_start': win_sync(('ranks', 'groupRanks', 'group')),
    'MPI_Win_complete': win_sync(),
    'MPI_Win_wait': win_sync(),
    'MPI_Win_test': win_sync(('flag', 'int', 'result == MPI_SUCCESS ? *flag : 0')),

    # --- Generalized requests: the rid of the request (completed by a Wait/Test <For>).
    'MPI_Grequest_start': dict(attrs=[('rid', 'int', 'rid')],
                               after=NEW_REQUEST),
    'MPI_Grequest_complete': dict(attrs=[('rid', 'int', 'rid')],
                                  before='const int64_t rid = call.requestEntry(&request).rid;'),
})
# ---- end of matched probes, one-sided communication, generalized requests

# Wrapped for their hooks, never written.
NOT_LOGGED = {'MPI_Request_free'}


# --- MPI-3.1 calls (docs/format/mpi3.md, "MPI-3.1 calls"). Each is derived
# from the entry of the call it is written like, so
# that a change to the blocking form carries over to its other forms.

def written_like(blocking, rid=False):
    """The attributes of FUNCTIONS[blocking], for another function (whose
    name gives the tag); with rid, the new request's rid after them (a
    nonblocking form: docs/format/mpi3.md)."""
    entry = dict(FUNCTIONS[blocking])
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
    'MPI_Reduce_scatter_block': written_like('MPI_Reduce_scatter'),
    'MPI_Alltoallw': written_like('MPI_Alltoallv'),
})
for _name in NONBLOCKING_COLLECTIVES:
    _iname = 'I' + _name.lower()  # MPI_Allreduce -> MPI_Iallreduce
    _entry = written_like('MPI_' + _name, rid=True)
    FUNCTIONS['MPI_' + _iname] = (with_root_rank(_entry) if _name in ROOTED_GATHER_SCATTER
                                  else _entry)
for _kind, _like in NEIGHBOR_COLLECTIVES.items():
    FUNCTIONS['MPI_Neighbor_' + _kind] = written_like('MPI_' + _like)
    FUNCTIONS['MPI_Ineighbor_' + _kind] = written_like('MPI_' + _like, rid=True)
for _name in NONBLOCKING_FILE_COLLECTIVES:
    _iname = _name.replace('File_', 'File_i', 1)
    FUNCTIONS['MPI_' + _iname] = written_like('MPI_' + _name, rid=True)


def file_query(*attrs, **hooks):
    """File_get_*: fid, then what the call returned (-1 when it failed)."""
    return dict(attrs=[('fid', 'file', 'fh')] + list(attrs), **hooks)


def returned(pointer):
    return f'result == MPI_SUCCESS ? *{pointer} : -1'


FUNCTIONS.update({
    # --- Communicator constructors: like Comm_split.
    'MPI_Comm_split_type': comm_constructor('comm', 'newcomm'),
    'MPI_Comm_create_group': comm_constructor('comm', 'newcomm'),
    'MPI_Comm_dup_with_info': comm_constructor('comm', 'newcomm'),
    'MPI_Cart_sub': comm_constructor('comm', 'new_comm'),
    'MPI_Dist_graph_create': comm_constructor('comm_old',
                                              'comm_dist_graph'),
    'MPI_Dist_graph_create_adjacent': comm_constructor('comm_old',
                                                       'comm_dist_graph'),
    # The new communicator is usable only once the request completed, but it
    # has the groups of comm: its Comm line is written at once, from comm's.
    'MPI_Comm_idup': dict(attrs=[('cid', 'comm', 'comm'),
                                                  ('newCid', 'int', 'newCid'),
                                                  ('rid', 'int', 'rid')],
                          after='const int64_t newCid = call.commDuplicated(result, comm, newcomm);\n'
                                + NEW_REQUEST),

    # --- File queries (docs/format/mpi3.md): fid, then the values returned.
    'MPI_File_get_atomicity': file_query(('flag', 'int', returned('flag'))),
    'MPI_File_get_amode': file_query(('flags', 'int', returned('amode'))),
    'MPI_File_get_view': file_query(('offset', 'int', returned('disp')),
        ('etid', 'type', 'result == MPI_SUCCESS ? *etype : MPI_DATATYPE_NULL'),
        ('filetid', 'type', 'result == MPI_SUCCESS ? *filetype : MPI_DATATYPE_NULL'),
        ('representation', 'string', 'result == MPI_SUCCESS ? datarep : ""')),
    'MPI_File_get_info': file_query(children='if (result == MPI_SUCCESS) call.infoChildren(*info_used);'),
    'MPI_File_get_group': file_query(('ranks', 'groupRanks', 'result == MPI_SUCCESS ? *group : MPI_GROUP_NULL')),
    'MPI_File_get_byte_offset': file_query(('offset', 'int', 'offset'),
                                           ('byteOffset', 'int', returned('disp'))),
    'MPI_File_get_type_extent': file_query(('tid', 'type', 'datatype'),
                                           ('extent', 'int', returned('extent'))),

    # --- The profiling interface's switch: Pcontrol(0) stops writing after
    # its own element, any other level resumes before its element.
    'MPI_Pcontrol': dict(attrs=[('level', 'int', 'level')],
                         first='if (level != 0) call.resumeWriting();',
                         last='if (level == 0) call.pauseWriting();'),
})

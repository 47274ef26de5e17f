! twin.F90: the Fortran twin of twin.c, built twice: with mpif.h
! (TWIN_MPIFH) and with `use mpi`. The same calls in the same order, so
! that test_fortran.py can require the traces to equal the C program's.
program twin
#ifndef TWIN_MPIFH
    use mpi
#endif
    implicit none
#ifdef TWIN_MPIFH
    include 'mpif.h'
#endif
    integer :: rank, nranks, right, left, i, round, value, total, ierr, code, class
    integer :: ints(4), got(4), both(8), spread(6), gathered(4)
    integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 4), requests(4)
    integer :: half, dup, vector, fh, any(3), some(2), index, outcount, indices(2)
    double precision :: doubles(5)
    integer(kind=MPI_OFFSET_KIND) :: disp

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    right = mod(rank + 1, nranks)
    left = mod(rank + nranks - 1, nranks)
    do i = 1, 4
        ints(i) = 100 * rank + i - 1
    end do

    if (mod(rank, 2) == 0) then
        call MPI_Send(ints, 4, MPI_INTEGER, right, 10 + rank, MPI_COMM_WORLD, ierr)
        call MPI_Recv(got, 4, MPI_INTEGER, MPI_ANY_SOURCE, 10 + left, MPI_COMM_WORLD, status, ierr)
    else
        call MPI_Recv(got, 4, MPI_INTEGER, MPI_ANY_SOURCE, 10 + left, MPI_COMM_WORLD, status, ierr)
        call MPI_Send(ints, 4, MPI_INTEGER, right, 10 + rank, MPI_COMM_WORLD, ierr)
    end if
    write (*, '("r", I0, " recv", 4(" ", I0))') rank, got
    write (*, '("r", I0, " status source=", I0, " tag=", I0)') rank, status(MPI_SOURCE), status(MPI_TAG)
    if (mod(rank, 2) == 0) then
        call MPI_Send(ints, 2, MPI_INTEGER, left, 20, MPI_COMM_WORLD, ierr)
        call MPI_Recv(got, 2, MPI_INTEGER, right, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
        call MPI_Recv(got, 2, MPI_INTEGER, right, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Send(ints, 2, MPI_INTEGER, left, 20, MPI_COMM_WORLD, ierr)
    end if
    write (*, '("r", I0, " recv2", 2(" ", I0))') rank, got(1:2)

    do round = 0, 1
        call MPI_Irecv(both(1), 4, MPI_INTEGER, left, 30, MPI_COMM_WORLD, requests(1), ierr)
        call MPI_Irecv(both(5), 4, MPI_INTEGER, right, 31, MPI_COMM_WORLD, requests(2), ierr)
        call MPI_Isend(ints, 4, MPI_INTEGER, right, 30, MPI_COMM_WORLD, requests(3), ierr)
        call MPI_Isend(ints, 4, MPI_INTEGER, left, 31, MPI_COMM_WORLD, requests(4), ierr)
        if (round == 0) then
            call MPI_Waitall(4, requests, statuses, ierr)
            write (*, '("r", I0, " waitall sources=", I0, ",", I0)') rank, &
                statuses(MPI_SOURCE, 1), statuses(MPI_SOURCE, 2)
        else
            call MPI_Waitall(4, requests, MPI_STATUSES_IGNORE, ierr)
        end if
        write (*, '("r", I0, " both", 8(" ", I0))') rank, both
    end do

    any = MPI_REQUEST_NULL
    some = MPI_REQUEST_NULL
    call MPI_Isend(ints, 4, MPI_INTEGER, right, 40, MPI_COMM_WORLD, some(2), ierr)
    call MPI_Irecv(got, 4, MPI_INTEGER, left, 40, MPI_COMM_WORLD, any(2), ierr)
    call MPI_Waitany(3, any, index, MPI_STATUS_IGNORE, ierr)
    call MPI_Waitsome(2, some, outcount, indices, MPI_STATUSES_IGNORE, ierr)
    write (*, '("r", I0, " any index=", I0, " some=", I0, ",", I0)') rank, index, outcount, indices(1)

    do i = 1, 5
        if (rank == 0) then
            doubles(i) = 0.5d0 * (i - 1)
        else
            doubles(i) = -1.0d0
        end if
    end do
    call MPI_Bcast(doubles, 5, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
    write (*, '("r", I0, " bcast ", F0.1, " ", F0.1)') rank, doubles(2), doubles(5)
    value = rank + 1
    call MPI_Allreduce(value, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(MPI_IN_PLACE, ints, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    gathered = 0
    gathered(rank + 1) = 10 + rank
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    write (*, '("r", I0, " allgather", *(" ", I0))') rank, gathered(1:nranks)
    write (*, '("r", I0, " allreduce ", I0)') rank, total
    write (*, '("r", I0, " inplace", 4(" ", I0))') rank, ints

    spread = 0
    if (rank == 0) then
        do i = 1, 6
            spread(i) = 7 * i
        end do
    end if
    call MPI_Type_vector(3, 1, 2, MPI_INTEGER, vector, ierr)
    call MPI_Type_commit(vector, ierr)
    call MPI_Bcast(spread, 1, vector, 0, MPI_COMM_WORLD, ierr)
    call MPI_Type_free(vector, ierr)
    write (*, '("r", I0, " vector", 6(" ", I0))') rank, spread

    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), nranks - rank, half, ierr)
    call MPI_Allreduce(value, total, 1, MPI_INTEGER, MPI_SUM, half, ierr)
    write (*, '("r", I0, " halfsum ", I0)') rank, total
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    call MPI_Barrier(dup, ierr)
    call MPI_Comm_free(dup, ierr)
    call MPI_Comm_free(half, ierr)

    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_Send(ints, 1, MPI_INTEGER, nranks + 5, 1, MPI_COMM_WORLD, code)
    call MPI_Error_class(code, class, ierr)
    call MPI_Recv(got, 4, MPI_INTEGER, MPI_PROC_NULL, 5, MPI_COMM_WORLD, status, ierr)
    write (*, '("r", I0, " errors send=", I0, " proc_null source=", I0, " tag=", I0)') &
        rank, class, status(MPI_SOURCE), status(MPI_TAG)

    call MPI_File_open(MPI_COMM_WORLD, 'twin.dat', MPI_MODE_CREATE + MPI_MODE_RDWR, &
                       MPI_INFO_NULL, fh, ierr)
    disp = 0
    call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
    do i = 1, 4
        ints(i) = 1000 * rank + i - 1
    end do
    disp = 4 * rank
    call MPI_File_write_at(fh, disp, ints, 4, MPI_INTEGER, status, ierr)
    call MPI_File_sync(fh, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_File_sync(fh, ierr)
    disp = 4 * right
    call MPI_File_read_at_all(fh, disp, got, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_File_close(fh, ierr)
    write (*, '("r", I0, " file", 4(" ", I0))') rank, got

    call MPI_Finalize(ierr)
end program twin

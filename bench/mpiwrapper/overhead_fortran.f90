! overhead_fortran.f90: the Fortran cases of run-overhead, through the
! `use mpi` entry points (mpi_send_, mpi_recv_, mpi_iprobe_):
!     bench_mpi_overhead_fortran fortran-pingpong ITERATIONS   (2 ranks)
!         the 0-byte Send/Recv ping-pong of overhead.c
!     bench_mpi_overhead_fortran fortran-iprobe ITERATIONS     (1 rank)
!         its Iprobe loop, which no scheduling of two ranks disturbs
! Prints on rank 0 "ns_per_iteration=<float> calls_per_iteration=<n>".
program overhead_fortran
    use mpi
    implicit none
    integer :: rank, nranks, peer, ierr, calls
    logical :: flag
    integer(kind=8) :: i, iterations, start, finish, rate
    character(len=32) :: argument
    character :: byte(1)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    call get_command_argument(1, argument)
    if (.not. ((trim(argument) == 'fortran-pingpong' .and. nranks == 2) .or. &
               (trim(argument) == 'fortran-iprobe' .and. nranks == 1))) then
        write (0, '(A)') 'usage: bench_mpi_overhead_fortran fortran-pingpong ITERATIONS (2 ranks)'
        write (0, '(A)') '       bench_mpi_overhead_fortran fortran-iprobe ITERATIONS (1 rank)'
        call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
    end if
    call get_command_argument(2, argument)
    read (argument, *) iterations
    peer = 1 - rank
    byte = 'x'

    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call system_clock(start, rate)
    if (nranks == 1) then
        calls = 1
        do i = 1, iterations
            call MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
        end do
    else
        calls = 2
        do i = 1, iterations
            if (rank == 0) then
                call MPI_Send(byte, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD, ierr)
                call MPI_Recv(byte, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
            else
                call MPI_Recv(byte, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
                call MPI_Send(byte, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD, ierr)
            end if
        end do
    end if
    call system_clock(finish)
    if (rank == 0) then
        write (*, '("ns_per_iteration=", F0.3, " calls_per_iteration=", I0)') &
            real(finish - start, 8) * 1.0d9 / real(rate, 8) / real(iterations, 8), calls
    end if
    call MPI_Finalize(ierr)
end program overhead_fortran

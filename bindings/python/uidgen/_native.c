// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uidgen._native: the Python binding's next() as libuidgen's uidgen_next(),
 * the per-thread cache of reserved runs (userlib/libuidgen.c), so that a
 * cached ID costs a C call and no system call. The library keeps its
 * guarantees here as in C: a forked child starts with its cache empty
 * (MADV_WIPEONFORK), a revoke or VM fork (the page's fence) and an observe
 * (the page's observed ID) cut every cached run, and no cached ID is handed
 * out past its run's tick by more than the staleness bound.
 *
 * Owns only this bridge. The rest of the binding (batch(), info(),
 * observe(), the errors and their hints) is uidgen/__init__.py's, which
 * uses this module when it imports and falls back to its own pure-Python
 * cache when it does not (or when UIDGEN_PURE_PYTHON=1).
 *
 * The GIL is never held across a sleep in the kernel: each Handle has two
 * libuidgen handles on the device, one O_NONBLOCK, called with the GIL
 * held (a cached ID, or a run the kernel has at hand), and one blocking,
 * called with the GIL released only when the first says EAGAIN (the tick's
 * sequence numbers are spent, or the grant has to rise). A signal that
 * interrupts the wait runs its Python handler before the call is retried
 * (PEP 475); an exception from it is raised.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>

#include "uidgen.h"

typedef struct {
	PyObject_HEAD
	struct uidgen *g;	/* O_NONBLOCK: called with the GIL held */
	struct uidgen *gw;	/* blocking: called with the GIL released */
	PyObject *error;	/* callable (errno, what) -> exception */
	/* Calls inside with the GIL released: close() leaves them the handles. */
	int busy;
	int closed;
} Handle;

/* The op next() names in its errors, as the pure-Python cache does. */
static const char next_op[] = "UIDGEN_IOC_RESERVE";

static PyObject *raise_errno(Handle *self, int err, const char *what)
{
	PyObject *exc = PyObject_CallFunction(self->error, "is", err, what);

	if (exc) {
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
		Py_DECREF(exc);
	}
	return NULL;
}

static void handle_release(Handle *self)
{
	uidgen_close(self->g);
	uidgen_close(self->gw);
	self->g = NULL;
	self->gw = NULL;
}

static int handle_init(Handle *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = { "path", "error", NULL };
	const char *path;
	PyObject *error;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "sO", kwlist, &path, &error))
		return -1;
	if (!PyCallable_Check(error)) {
		PyErr_SetString(PyExc_TypeError, "error must be callable");
		return -1;
	}
	if (self->g || self->gw) {
		PyErr_SetString(PyExc_RuntimeError, "Handle is already open");
		return -1;
	}
	Py_INCREF(error);
	Py_XSETREF(self->error, error);
	r = uidgen_open_flags(&self->g, path, O_NONBLOCK);
	if (!r)
		r = uidgen_open(&self->gw, path);
	if (r) {
		handle_release(self);
		raise_errno(self, -r, path);
		return -1;
	}
	return 0;
}

static void handle_dealloc(Handle *self)
{
	/* No call can be in flight: each holds a reference. */
	handle_release(self);
	Py_XDECREF(self->error);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* EAGAIN: wait in the kernel with the GIL released; EINTR: run handlers. */
static PyObject *next_slow(Handle *self, int r)
{
	uint64_t id;

	Py_INCREF(self);
	while (r == -EAGAIN || r == -EINTR) {
		if (r == -EINTR && PyErr_CheckSignals())
			goto out;
		if (self->closed) {
			r = -EBADF;
			break;
		}
		self->busy++;
		Py_BEGIN_ALLOW_THREADS
		r = uidgen_next(self->gw, &id);
		Py_END_ALLOW_THREADS
		self->busy--;
		if (self->closed && !self->busy)
			handle_release(self);
	}
	Py_DECREF(self);
	if (r)
		return raise_errno(self, -r, next_op);
	return PyLong_FromUnsignedLongLong(id);
out:
	Py_DECREF(self);
	return NULL;
}

static PyObject *handle_next(Handle *self, PyObject *unused)
{
	uint64_t id;
	int r;

	(void)unused;
	if (__builtin_expect(self->closed || !self->g, 0))
		return raise_errno(self, EBADF, next_op);
	r = uidgen_next(self->g, &id);
	if (__builtin_expect(!r, 1))
		return PyLong_FromUnsignedLongLong(id);
	if (r != -EAGAIN && r != -EINTR)
		return raise_errno(self, -r, next_op);
	return next_slow(self, r);
}

static PyObject *handle_close(Handle *self, PyObject *unused)
{
	(void)unused;
	self->closed = 1;
	if (!self->busy)
		handle_release(self);
	Py_RETURN_NONE;
}

static PyMethodDef handle_methods[] = {
	{ "next", (PyCFunction)handle_next, METH_NOARGS,
	  "One fresh ID: libuidgen's uidgen_next() (this thread's cached run)." },
	{ "close", (PyCFunction)handle_close, METH_NOARGS,
	  "Close the device; next() then raises EBADF's error." },
	{ NULL }
};

static PyTypeObject HandleType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "uidgen._native.Handle",
	.tp_doc = "Handle(path, error): libuidgen handles on the device; error(errno, what) "
		  "makes the exception next() raises.",
	.tp_basicsize = sizeof(Handle),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)handle_init,
	.tp_dealloc = (destructor)handle_dealloc,
	.tp_methods = handle_methods,
};

static struct PyModuleDef native_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "uidgen._native",
	.m_doc = "libuidgen's uidgen_next() for the uidgen binding (its C extension).",
	.m_size = -1,
};

PyMODINIT_FUNC PyInit__native(void)
{
	PyObject *m;

	if (PyType_Ready(&HandleType) < 0)
		return NULL;
	m = PyModule_Create(&native_module);
	if (!m)
		return NULL;
	Py_INCREF(&HandleType);
	if (PyModule_AddObject(m, "Handle", (PyObject *)&HandleType) < 0) {
		Py_DECREF(&HandleType);
		Py_DECREF(m);
		return NULL;
	}
	return m;
}

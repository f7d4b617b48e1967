"""Uploading training code through the API: a script, a zip, a notebook stored by content with what
they hold, their default entry point and requirements; reading a file back; and every refusal
(zip slip, links, sizes, syntax errors with their line, bad notebooks, no entry point, roles, tenants)."""

from __future__ import annotations

import hashlib

import pytest
from customjobs.models import CodeArchive
from django.core.files.storage import default_storage

from tests.customjobs.code_factories import TRAIN_PY, make_code_zip, notebook_bytes, post_code
from tests.datasets.factories import blob_files

pytestmark = [pytest.mark.django_db, pytest.mark.openapi_conformance]


def error_of(response) -> dict:
    return response.json()["error"]


def test_a_script_is_stored_by_content_with_itself_as_entry_point(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    response = post_code(client, tenants["project_a"], TRAIN_PY, filename="train.py")
    assert response.status_code == 201, response.content
    body = response.json()
    sha = hashlib.sha256(TRAIN_PY).hexdigest()
    assert body["code_kind"] == "script" and body["name"] == "train" and body["filename"] == "train.py"
    assert body["sha256"] == sha and body["size_bytes"] == len(TRAIN_PY)
    assert body["files"] == [{"path": "train.py", "size_bytes": len(TRAIN_PY)}]
    assert body["entry_point"] == "train.py" and body["requirements"] == ""
    assert body["project"] == tenants["project_a"].pk and body["workspace"] == tenants["ws_a"].pk
    assert body["created_by"] == "alice"
    archive = CodeArchive.objects.get(pk=body["id"])
    with default_storage.open(archive.blob_key, "rb") as blob:
        assert blob.read() == TRAIN_PY
    assert blob_files(isolated_storage) == [f"code/{sha[:2]}/{sha}.py"]
    # the same file again: a second archive, one blob
    again = post_code(client, tenants["project_a"], TRAIN_PY, filename="train.py", name="second")
    assert again.status_code == 201 and again.json()["name"] == "second"
    assert len(blob_files(isolated_storage)) == 1


def test_a_zip_lists_its_files_reads_requirements_and_finds_train_py(tenants, api_client, isolated_storage):
    data = make_code_zip(
        {
            "train.py": TRAIN_PY,
            "helpers/__init__.py": b"",
            "helpers/model.py": b"def build():\n    return 1\n",
            "requirements.txt": b"scikit-learn>=1.3\n# a comment\n",
            "data/config.json": b"{}",
        }
    )
    client = api_client(tenants["erin"])  # an editor may upload
    response = post_code(client, tenants["project_a"], data, filename="project.zip")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["code_kind"] == "zip" and body["entry_point"] == "train.py"
    assert body["requirements"] == "scikit-learn>=1.3\n# a comment\n"
    assert {f["path"] for f in body["files"]} == {
        "train.py",
        "helpers/__init__.py",
        "helpers/model.py",
        "requirements.txt",
        "data/config.json",
    }
    # a file of it, as text for the UI
    text = client.get(f"/api/v1/code-archives/{body['id']}/files/?path=helpers/model.py")
    assert text.status_code == 200 and text.json() == {
        "path": "helpers/model.py",
        "text": "def build():\n    return 1\n",
    }
    missing = client.get(f"/api/v1/code-archives/{body['id']}/files/?path=nope.py")
    assert missing.status_code == 404 and "nope.py" in error_of(missing)["message"]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"main.py": TRAIN_PY, "util.py": b"x = 1\n"}, "main.py"),
        ({"__main__.py": TRAIN_PY, "util/a.py": b""}, "__main__.py"),
        ({"fit_digits.py": TRAIN_PY, "README.md": b"hi"}, "fit_digits.py"),
        ({"myproj/train.py": TRAIN_PY, "myproj/lib/x.py": b""}, "myproj/train.py"),  # a wrapping folder
    ],
)
def test_a_zips_default_entry_point(files, expected, tenants, api_client, isolated_storage):
    response = post_code(
        api_client(tenants["alice"]), tenants["project_a"], make_code_zip(files), filename="c.zip"
    )
    assert response.status_code == 201, response.content
    assert response.json()["entry_point"] == expected


def test_a_zip_entry_point_may_be_named_a_module_or_a_notebook(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    files = {
        "a.py": b"",
        "b.py": b"",
        "trainer/__init__.py": b"",
        "trainer/main.py": TRAIN_PY,
        "nb/explore.ipynb": notebook_bytes(),
    }
    data = make_code_zip(files)
    none = post_code(client, tenants["project_a"], data, filename="c.zip")
    assert none.status_code == 400 and error_of(none)["code"] == "code_archive_invalid"
    assert "entry_point" in error_of(none)["details"]
    module = post_code(client, tenants["project_a"], data, filename="c.zip", entry_point="trainer.main")
    assert module.status_code == 201 and module.json()["entry_point"] == "trainer.main"
    notebook = post_code(client, tenants["project_a"], data, filename="c.zip", entry_point="nb/explore.ipynb")
    assert notebook.status_code == 201 and notebook.json()["entry_point"] == "nb/explore.ipynb"
    for wrong, says in [
        ("trainer.other", "trainer/other.py"),
        ("missing.py", "missing.py"),
        ("../x.py", "../x.py"),
    ]:
        response = post_code(client, tenants["project_a"], data, filename="c.zip", entry_point=wrong)
        assert response.status_code == 400, (wrong, response.content)
        assert error_of(response)["code"] == "code_archive_invalid" and says in error_of(response)["message"]
    assert CodeArchive.objects.count() == 2


def test_a_notebook_is_accepted_and_a_bad_one_refused(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    ok = post_code(client, tenants["project_a"], notebook_bytes(), filename="explore.ipynb")
    assert ok.status_code == 201, ok.content
    assert ok.json()["code_kind"] == "notebook" and ok.json()["entry_point"] == "explore.ipynb"
    cases = [
        (b"not json at all", "not JSON"),
        (notebook_bytes(nbformat=3), "nbformat 4"),
        (notebook_bytes([{"cell_type": "widget", "source": ""}]), "cell 1"),
        (notebook_bytes([{"cell_type": "code", "source": ""}, {"cell_type": "code", "source": 7}]), "cell 2"),
    ]
    for data, says in cases:
        response = post_code(client, tenants["project_a"], data, filename="bad.ipynb")
        assert response.status_code == 400, (says, response.content)
        assert error_of(response)["code"] == "code_archive_invalid" and says in error_of(response)["message"]
    assert CodeArchive.objects.count() == 1


def test_a_script_that_does_not_compile_is_refused_naming_the_line(tenants, api_client, isolated_storage):
    source = b"import os\n\ndef train(:\n    pass\n"
    response = post_code(api_client(tenants["alice"]), tenants["project_a"], source, filename="train.py")
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "code_archive_invalid"
    assert "train.py does not compile" in error["message"] and "line 3" in error["message"]
    # the same inside a zip: its entry point is compiled
    zipped = make_code_zip({"train.py": source})
    response = post_code(api_client(tenants["alice"]), tenants["project_a"], zipped, filename="c.zip")
    assert response.status_code == 400 and "line 3" in error_of(response)["message"]
    assert CodeArchive.objects.count() == 0 and blob_files(isolated_storage) == []


@pytest.mark.parametrize(
    ("data", "filename", "says"),
    [
        (make_code_zip({"train.py": TRAIN_PY, "../evil.py": b"x=1"}), "c.zip", "zip slip"),
        (make_code_zip({"train.py": TRAIN_PY, "/etc/evil.py": b"x=1"}), "c.zip", "absolute path"),
        (
            make_code_zip({"train.py": TRAIN_PY}, symlinks={"secrets": "/etc/shadow"}),
            "c.zip",
            "symbolic link",
        ),
        (b"PK\x03\x04 this is no zip", "c.zip", "damaged"),
        (
            make_code_zip({"train.py": TRAIN_PY, "requirements.txt": b"\xff\xfenumpy"}),
            "c.zip",
            "requirements.txt",
        ),
        (TRAIN_PY, "train.txt", "not training code"),
        (b"", "train.py", "empty"),
    ],
    ids=["zip-slip", "absolute", "symlink", "corrupt", "requirements", "suffix", "empty"],
)
def test_unsafe_or_unusable_uploads_are_refused(data, filename, says, tenants, api_client, isolated_storage):
    response = post_code(api_client(tenants["alice"]), tenants["project_a"], data, filename=filename)
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert error["code"] == "code_archive_invalid" and says in error["message"], error
    assert CodeArchive.objects.count() == 0 and blob_files(isolated_storage) == []


def test_code_over_the_size_cap_is_413(tenants, api_client, isolated_storage, settings):
    settings.SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES = 2048
    client = api_client(tenants["alice"])
    big = TRAIN_PY + b"#" * 3000 + b"\n"
    response = post_code(client, tenants["project_a"], big, filename="train.py")
    assert response.status_code == 413
    error = error_of(response)
    assert (
        error["code"] == "code_archive_too_large" and "SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES" in error["message"]
    )
    # a small zip that unpacks past the cap
    bomb = make_code_zip({"train.py": TRAIN_PY, "data.txt": b"0" * 5000})
    assert len(bomb) < 2048
    response = post_code(client, tenants["project_a"], bomb, filename="c.zip")
    assert response.status_code == 413, response.content
    assert (
        error_of(response)["code"] == "code_archive_too_large"
        and "unpacks to more than" in error_of(response)["message"]
    )
    assert CodeArchive.objects.count() == 0 and blob_files(isolated_storage) == []


def test_binary_files_are_not_shown_as_text(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    data = make_code_zip({"train.py": TRAIN_PY, "weights.bin": bytes(range(256))})
    archive = post_code(client, tenants["project_a"], data, filename="c.zip").json()
    response = client.get(f"/api/v1/code-archives/{archive['id']}/files/?path=weights.bin")
    assert response.status_code == 400 and error_of(response)["code"] == "code_file_not_text"
    script = post_code(client, tenants["project_a"], TRAIN_PY, filename="train.py").json()
    shown = client.get(f"/api/v1/code-archives/{script['id']}/files/?path=train.py")
    assert shown.status_code == 200 and shown.json()["text"] == TRAIN_PY.decode()


def test_roles_and_tenants(tenants, api_client, isolated_storage):
    alice = api_client(tenants["alice"])
    archive = post_code(alice, tenants["project_a"], TRAIN_PY).json()
    # a viewer reads, and may not upload (403 before the file is judged)
    carol = api_client(tenants["carol"])
    assert carol.get(f"/api/v1/code-archives/{archive['id']}/").status_code == 200
    refused = post_code(carol, tenants["project_a"], b"def (:")
    assert refused.status_code == 403 and error_of(refused)["code"] == "permission_denied"
    # another workspace: 404 for the archive and its files, nothing listed, no upload into A
    bob = api_client(tenants["bob"])
    assert bob.get(f"/api/v1/code-archives/{archive['id']}/").status_code == 404
    assert bob.get(f"/api/v1/code-archives/{archive['id']}/files/?path=train.py").status_code == 404
    assert bob.get("/api/v1/code-archives/").json()["count"] == 0
    stranger = post_code(bob, tenants["project_a"], TRAIN_PY)
    assert stranger.status_code == 400 and "project" in error_of(stranger)["details"]
    # lists filter by project
    listed = alice.get(f"/api/v1/code-archives/?project={tenants['project_a'].pk}").json()
    assert [row["id"] for row in listed["results"]] == [archive["id"]]
    assert alice.get(f"/api/v1/code-archives/?project={tenants['project_b'].pk}").json()["count"] == 0


def test_zip_bombs_and_too_many_files_are_413(tenants, api_client, isolated_storage, settings, monkeypatch):
    from customjobs import archives

    client = api_client(tenants["alice"])
    settings.SAMPAN_DATASET_MAX_COMPRESSION_RATIO = 100
    bomb = make_code_zip({"train.py": TRAIN_PY, "zeros.bin": bytes(4 * 1024 * 1024)})
    response = post_code(client, tenants["project_a"], bomb, filename="c.zip")
    assert response.status_code == 413, response.content
    error = error_of(response)
    assert error["code"] == "code_archive_too_large" and "zeros.bin" in error["message"]
    assert "zip bomb" in error["message"] and error["details"]["reason"] == "compression_ratio"
    monkeypatch.setattr(archives, "CODE_MAX_FILES", 3)
    many = make_code_zip({f"m{i}.py": b"" for i in range(4)} | {"train.py": TRAIN_PY})
    response = post_code(client, tenants["project_a"], many, filename="c.zip")
    assert response.status_code == 413 and "more than 3 files" in error_of(response)["message"]
    assert CodeArchive.objects.count() == 0 and blob_files(isolated_storage) == []

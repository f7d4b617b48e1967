"""Stamp ``version`` on the package reports stored before the report had a contract
(``workers.contracts.packages``: ``kind`` server or device was there already)."""

from django.db import migrations


def stamp(apps, schema_editor):
    Package = apps.get_model("deploy", "Package")
    packages = Package.objects.exclude(report={}).only("pk", "report")
    for package in packages.iterator(chunk_size=500):
        report = package.report
        if isinstance(report, dict) and "kind" in report and "version" not in report:
            Package.objects.filter(pk=package.pk).update(report={**report, "version": 1})


class Migration(migrations.Migration):
    dependencies = [("deploy", "0002_deployment_model_version_restrict")]

    operations = [migrations.RunPython(stamp, migrations.RunPython.noop, elidable=False)]

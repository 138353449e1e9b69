"""The host side of the workbook, imported from the top of the checkout
(python3 -m vm.session.ks, make's way in)."""

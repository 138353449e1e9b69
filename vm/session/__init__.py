"""The session layer: facts about stages and labs, guests, gdb, grading
answers. Run as python3 -m vm.session.ks from the top of the checkout."""
